// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bad-edit corpus ({@code fixtures/bad-edits/corpus.tsv}): each case appends one line to the shipped demo
 * configuration. Every case must be refused, by {@code check-config} and by the live reload of a running demo
 * agent, with {@code file:line: key:} and the case's message fragment (the limit or the accepted forms); the
 * running agent keeps its last good configuration, and what served before still serves.
 */
class BadEditCorpusIT {

    static final Path DIST = ShippedConfigIT.DIST.toAbsolutePath();
    static final Path CORPUS = Path.of("src/test/resources/fixtures/bad-edits/corpus.tsv");

    /** One bad edit: who refuses it, the HOCON key named in the message, the appended line, the fragment. */
    record Case(int number, String owner, String key, String edit, String fragment) {
        @Override
        public String toString() {
            return "#" + number + " [" + owner + "] " + edit;
        }
    }

    static List<Case> cases;
    static String good;
    /** The 1-based line every edit lands on. */
    static int editLine;

    @TempDir
    Path temp;

    @BeforeAll
    static void readCorpus() throws IOException {
        List<Case> all = new ArrayList<>();
        for (String line : Files.readAllLines(CORPUS, StandardCharsets.UTF_8)) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            all.add(new Case(all.size() + 1, f[0], f[1], f[2], f[3]));
        }
        cases = List.copyOf(all);
        good = Files.readString(DIST.resolve("config/demo.conf"));
        if (!good.endsWith("\n")) {
            good += "\n";
        }
        editLine = (int) good.lines().count() + 1;
    }

    @Test
    void corpusHasAtLeastAHundredCasesAndTheIssuesExamples() {
        assertThat(cases).hasSizeGreaterThanOrEqualTo(100);
        assertThat(cases.stream().map(Case::edit)).anyMatch(e -> e.contains("pciAddresses = [\"zz:zz\"]"))
                .anyMatch(e -> e.contains("selectors {}")).anyMatch(e -> e.contains("pfNames = [\"#7-3\"]"))
                .anyMatch(e -> e.contains("linkTypes = [\"token-ring\"]"))
                .anyMatch(e -> e.contains("resourcePrefix = \"bad prefix!\""))
                .anyMatch(e -> e.contains("metrics.deviceInclude = \"([\""))
                .anyMatch(e -> e.contains("cni { socket = \"/run/aaaa"))
                .anyMatch(e -> e.contains("freeflow { routerName = \"../x\" }"));
    }

    @Test
    void checkConfigRefusesEveryCaseWithFileLineKeyAndTheLimit() throws Exception {
        List<String> failures = new ArrayList<>();
        for (Case c : cases) {
            Path file = temp.resolve("case-" + c.number() + ".conf");
            Files.writeString(file, good + c.edit() + "\n");
            List<String> command = List.of(DIST.resolve("bin/rdma-node-agent").toString(), "check-config",
                    file.toString());
            Path out = temp.resolve("case-" + c.number() + ".out");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile())
                    .start();
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("check-config %s", c).isTrue();
            String output = Files.readString(out);
            String why = verdict(c, file, process.exitValue() == 6, output.lines().toList());
            if (why != null) {
                failures.add(c + ": " + why + "\n    exit " + process.exitValue() + ": " + output.strip()
                        .replace("\n", "\n    "));
            }
        }
        assertThat(failures).as(summary(failures)).isEmpty();
    }

    @Test
    void liveReloadRefusesEveryCaseAndEverythingKeepsServing() throws Exception {
        Path config = temp.resolve("agent.conf");
        write(config, good);
        try (AgentProcess agent = startDemo(config)) {
            AgentProcess.DemoBanner demo = agent.awaitDemoBanner(Duration.ofSeconds(60));
            String base = demo.base();
            Path demoState = demo.stateDir();
            assertThat(AgentProcess.status(base + "/startedz")).isEqualTo(200);
            JsonObject before = configStatus(base);
            assertThat(before.get("state").getAsString()).isEqualTo("applied");
            String appliedChecksum = before.getAsJsonObject("lastApplied").get("checksum").getAsString();
            double rejectedBefore = rejectedReloads(base);
            Map<Path, Object> sockets = sockets(demoState);

            List<String> failures = new ArrayList<>();
            for (Case c : cases) {
                String content = good + c.edit() + "\n";
                String checksum = checksum(content);
                write(config, content);
                JsonObject status;
                try {
                    status = Awaitility.await("rejection of " + c).atMost(Duration.ofSeconds(10))
                            .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                            .until(() -> configStatus(base), s -> seen(s, checksum));
                } catch (ConditionTimeoutException notSeen) {
                    failures.add(c + ": no verdict within 10 s");
                    continue;
                }
                boolean refused = status.get("lastRejected") instanceof JsonObject rejected
                        && checksum.equals(rejected.get("checksum").getAsString());
                List<String> problems = new ArrayList<>();
                if (refused) {
                    for (JsonElement p : status.getAsJsonObject("lastRejected").getAsJsonArray("problems")) {
                        problems.add(p.getAsString());
                    }
                }
                String why = verdict(c, config, refused, problems);
                if (why == null && !appliedChecksum.equals(
                        status.getAsJsonObject("lastApplied").get("checksum").getAsString())) {
                    why = "applied";
                }
                if (why == null && !sockets(demoState).equals(sockets)) {
                    why = "a device-plugin socket was re-created: " + sockets(demoState);
                }
                if (why != null) {
                    failures.add(c + ": " + why + "\n    " + String.join("\n    ", problems));
                }
                if (!refused) {
                    // An accepted case applied (pools restarted): the good file again, and the sockets it makes.
                    write(config, good);
                    Awaitility.await("good file back").atMost(Duration.ofSeconds(10)).pollInterval(
                            Duration.ofMillis(20)).until(() -> configStatus(base), s -> seen(s, checksum(good)));
                    int expected = sockets.size();
                    Awaitility.await("ready again").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                            .until(() -> AgentProcess.status(base + "/startedz") == 200
                                    && sockets(demoState).size() == expected);
                    sockets = sockets(demoState);
                }
            }

            // Nothing went down: readiness, the sockets (same inodes), the metrics endpoint, the rejection count.
            assertThat(failures).as(summary(failures)).isEmpty();
            assertThat(sockets).isNotEmpty();
            assertThat(AgentProcess.status(base + "/startedz")).isEqualTo(200);
            assertThat(sockets(demoState)).isEqualTo(sockets);
            assertThat(AgentProcess.get(base + "/metrics").statusCode()).isEqualTo(200);
            assertThat(configStatus(base).get("state").getAsString()).isEqualTo("rejected");
            assertThat(rejectedReloads(base) - rejectedBefore).isEqualTo(cases.size());
        }
    }

    /**
     * Ownership needs the host, so only a running agent can judge it (check-config has no discovery): a shared
     * pool naming VFs an SR-IOV pool takes (the demo's configuration before the ownership table) is refused
     * naming both pools, at a pool's line, and nothing is applied.
     */
    @Test
    void liveReloadRefusesASharedPoolHoldingVfsAnSriovPoolOwns() throws Exception {
        Path config = temp.resolve("agent.conf");
        write(config, good);
        try (AgentProcess agent = startDemo(config)) {
            AgentProcess.DemoBanner demo = agent.awaitDemoBanner(Duration.ofSeconds(60));
            String base = demo.base();
            Path demoState = demo.stateDir();
            Awaitility.await("ready").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> AgentProcess.status(base + "/startedz") == 200);
            String applied = configStatus(base).getAsJsonObject("lastApplied").get("checksum").getAsString();
            Map<Path, Object> sockets = sockets(demoState);

            String overlap = "deviceplugin.shared.pools = [ { name = hca_pf, rdmaHcaMax = 100, selectors { vendors"
                    + " = [\"15b3\"], deviceIDs = [\"1017\"] } }, { name = hca_vf_pf0, rdmaHcaMax = 50, selectors {"
                    + " ifNames = [ens1f0v0, ens1f0v1, ens1f0v7] } } ]";
            String content = good + overlap + "\n";
            write(config, content);
            JsonObject status = Awaitility.await("verdict").atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(20)).until(() -> configStatus(base), s -> seen(s, checksum(content)));

            assertThat(status.get("lastRejected")).as("the overlap is refused").isInstanceOf(JsonObject.class);
            List<String> problems = new ArrayList<>();
            status.getAsJsonObject("lastRejected").getAsJsonArray("problems").forEach(p -> problems.add(p.getAsString()));
            assertThat(problems).anyMatch(p -> p.matches("\\Q" + config + "\\E:\\d+:\\d+: deviceplugin\\..*")
                    && p.contains("hca_vf_pf0") && p.contains("sriov_pf0_low"));
            assertThat(status.getAsJsonObject("lastApplied").get("checksum").getAsString()).isEqualTo(applied);
            assertThat(sockets(demoState)).isEqualTo(sockets);
            assertThat(AgentProcess.status(base + "/startedz")).isEqualTo(200);
        }
    }

    /** The demo on {@code config}, its HTTP port chosen by the kernel. */
    private AgentProcess startDemo(Path config) throws IOException {
        return AgentProcess.start(DIST, temp.resolve("unused"), Map.of("RDMA_AGENT_HTTP_PORT", "0"), "--demo",
                "--config", config.toString());
    }

    /** Null when {@code lines} refuse the case as expected, else what is wrong. */
    private static String verdict(Case c, Path file, boolean refused, List<String> lines) {
        if (!refused) {
            return "accepted";
        }
        // file:line:column: key: message (issue 22): every refusal names the column as well.
        String prefix = c.owner().equals("syntax")
                ? java.util.regex.Pattern.quote(file + ":") + "\\d+:\\d+: syntax: "
                : java.util.regex.Pattern.quote(file + ":" + editLine + ":") + "\\d+: "
                        + java.util.regex.Pattern.quote(c.key() + ": ");
        java.util.regex.Pattern start = java.util.regex.Pattern.compile("^" + prefix);
        boolean found = lines.stream().anyMatch(l -> start.matcher(l).find() && l.contains(c.fragment()));
        return found ? null : "no line matching '" + prefix + "' containing '" + c.fragment() + "'";
    }

    private static String summary(List<String> failures) {
        Map<String, Integer> byOwner = new TreeMap<>();
        for (String f : failures) {
            byOwner.merge(f.replaceAll("^#\\d+ \\[([^]]+)].*(?s).*", "$1"), 1, Integer::sum);
        }
        return failures.size() + " of " + cases.size() + " cases not refused as expected, by owner " + byOwner
                + ":\n" + String.join("\n", failures);
    }

    static boolean seen(JsonObject status, String checksum) {
        return status.get("lastRejected") instanceof JsonObject r && checksum.equals(r.get("checksum").getAsString())
                || status.get("lastApplied") instanceof JsonObject a
                && checksum.equals(a.get("checksum").getAsString()) && "applied".equals(status.get("state")
                .getAsString());
    }

    static JsonObject configStatus(String base) throws IOException, InterruptedException {
        return AgentProcess.json(base + "/status").getAsJsonObject("config");
    }

    private static double rejectedReloads(String base) throws IOException, InterruptedException {
        return AgentProcess.get(base + "/metrics").body().lines()
                .filter(l -> l.startsWith("rdma_agent_config_reloads_total{") && l.contains("result=\"rejected\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /** Every Unix socket under the demo's state directory, with its inode. */
    private static Map<Path, Object> sockets(Path root) throws IOException {
        Map<Path, Object> sockets = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.toList()) {
                if (Files.exists(p) && p.getFileName().toString().endsWith(".sock")
                        && !Files.isRegularFile(p) && !Files.isDirectory(p)) {
                    sockets.put(p, Files.getAttribute(p, "unix:ino"));
                }
            }
        }
        return sockets;
    }

    /** The config bridge's revision checksum: the first 16 hex digits of the content's SHA-256. */
    static String checksum(String content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(
                    content.getBytes(StandardCharsets.UTF_8))).substring(0, 16);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void write(Path config, String content) throws IOException {
        Path tmp = temp.resolve(".agent.conf.tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, config, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
