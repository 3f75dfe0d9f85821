// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8, item 16: the packaged class-data-sharing archive is for one JDK build. On a node whose JDK differs
 * (simulated: the packaged archive is renamed to another version's name) the first start runs without one and
 * makes one for this JDK in the state directory; the next start uses it, and {@code /status} says so each time.
 */
class CdsArchiveIT {

    @TempDir
    Path temp;

    @Test
    void makesAnArchiveForTheRunningJdkOnTheFirstStartAndUsesItOnTheNext() throws Exception {
        Path home = distributionWithoutAnArchiveForThisJdk();
        Path state = temp.resolve("state");
        Path config = configWithStateDir(state);
        Path cds = state.resolve("cds");

        try (AgentProcess first = AgentProcess.start(home, state, Map.of("RDMA_AGENT_CDS_DIR", cds.toString()),
                "--config", config.toString())) {
            String base = first.awaitStarted(Duration.ofSeconds(60));
            assertThat(cdsStatus(base)).startsWith("none: making " + cds.resolve("agent-"));
            Awaitility.await("archive made").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> archive(cds) != null);
            assertThat(first.terminate(Duration.ofSeconds(15))).isZero();
        }
        Path made = archive(cds);
        try (Stream<Path> files = Files.list(cds)) {
            assertThat(files).as("no partial files or logs left; where it was made").containsExactlyInAnyOrder(made,
                    made.resolveSibling(made.getFileName() + ".home"));
        }
        assertThat(Files.readString(made.resolveSibling(made.getFileName() + ".home")).trim())
                .isEqualTo(home.toString());

        try (AgentProcess second = AgentProcess.start(home, state, Map.of("RDMA_AGENT_CDS_DIR", cds.toString()),
                "--config", config.toString())) {
            String base = second.awaitStarted(Duration.ofSeconds(60));
            assertThat(cdsStatus(base)).isEqualTo("state " + made);
            assertThat(second.terminate(Duration.ofSeconds(15))).isZero();
        }
    }

    /**
     * A distribution upgraded in place: the JVM refuses the archive made before (JDK 17 checks each class-path
     * jar's size and modification time; a package manager gives its files the build's time). It only printed a
     * warning, the script went on naming the archive, and every start ran without one. Now {@code /status} says
     * it was refused, the agent makes it again, and the next start uses it.
     */
    @Test
    void anArchiveTheJvmRefusesIsReportedAndMadeAgain() throws Exception {
        Path home = distributionWithoutAnArchiveForThisJdk();
        Path state = temp.resolve("state");
        Path config = configWithStateDir(state);
        Path cds = state.resolve("cds");
        Map<String, String> env = Map.of("RDMA_AGENT_CDS_DIR", cds.toString());
        try (AgentProcess first = AgentProcess.start(home, state, env, "--config", config.toString())) {
            first.awaitStarted(Duration.ofSeconds(60));
            Awaitility.await("archive made").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> archive(cds) != null);
            assertThat(first.terminate(Duration.ofSeconds(15))).isZero();
        }
        Path made = archive(cds);
        Assumptions.assumeTrue(made.toString().endsWith(".jsa"),
                "JDK 17's dynamic archive; JDK 25's AOT cache does not check the jars' times");
        Object madeFirst = Files.getAttribute(made, "unix:ino");
        Files.setLastModifiedTime(home.resolve("lib/agent-launcher.jar"),
                FileTime.from(Instant.now().minus(Duration.ofDays(1))));

        try (AgentProcess second = AgentProcess.start(home, state, env, "--config", config.toString())) {
            String base = second.awaitStarted(Duration.ofSeconds(60));
            assertThat(cdsStatus(base)).isEqualTo("refused " + made + " (this JVM did not map it): making " + made
                    + " for the next start");
            Awaitility.await("archive made again").atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> Files.exists(made) && !Files.getAttribute(made, "unix:ino").equals(madeFirst));
            assertThat(second.output()).contains("this JVM refused the class-data-sharing archive " + made);
            assertThat(second.terminate(Duration.ofSeconds(15))).isZero();
        }

        try (AgentProcess third = AgentProcess.start(home, state, env, "--config", config.toString())) {
            String base = third.awaitStarted(Duration.ofSeconds(60));
            assertThat(cdsStatus(base)).isEqualTo("state " + made);
            assertThat(third.output()).doesNotContain("Unable to use shared archive");
            assertThat(third.terminate(Duration.ofSeconds(15))).isZero();
        }
    }

    /** The demo's archive is per user: one made by another copy of the distribution is not named to the JVM. */
    @Test
    void anArchiveMadeByAnotherCopyOfTheDistributionIsMadeAgainForThisOne() throws Exception {
        Path home = distributionWithoutAnArchiveForThisJdk();
        Path state = temp.resolve("state");
        Path config = configWithStateDir(state);
        Path cds = Files.createDirectories(state.resolve("cds"));
        String file = archiveFileName(home);
        Path elsewhere = Files.writeString(cds.resolve(file), "made by /opt/other/rdma-node-agent");
        Files.writeString(cds.resolve(file + ".home"), "/opt/other/rdma-node-agent\n");

        try (AgentProcess agent = AgentProcess.start(home, state, Map.of("RDMA_AGENT_CDS_DIR", cds.toString()),
                "--config", config.toString())) {
            String base = agent.awaitStarted(Duration.ofSeconds(60));
            assertThat(cdsStatus(base)).isEqualTo("none: making " + elsewhere + " for the next start");
            Awaitility.await("archive made for this copy").atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> Files.readString(cds.resolve(file + ".home")).trim().equals(home.toString()));
            assertThat(agent.output()).doesNotContain("Unable to use shared archive");
            assertThat(agent.terminate(Duration.ofSeconds(15))).isZero();
        }
    }

    @Test
    void theBuildsTrainingLeavesOnlyTheArchiveAndWhereItWasMade() throws Exception {
        Path packaged = AgentProcessIT.DIST.resolve("lib/cds");
        Assumptions.assumeTrue(Files.isDirectory(packaged), "built with -Ddist.cds.skip");
        try (Stream<Path> files = Files.list(packaged)) {
            // Not the training run's class log (CdsClassLinker deletes it), nor anything else it wrote.
            assertThat(files.map(f -> f.getFileName().toString()))
                    .allMatch(f -> f.matches("agent-.+\\.(jsa|aot)(\\.home)?"), "archives and their .home files");
        }
    }

    /**
     * An agent killed while it trains (SIGKILL, the OOM killer) takes its training run with it: each start of a
     * crash loop left one more training JVM running (12 after 16 rounds of {@code bench-crash-window} on a JDK
     * without an archive). The next start removes the files the killed run left and makes the archive.
     */
    @Test
    void aTrainingRunEndsWhenItsAgentIsKilledAndTheNextStartCleansUpAfterIt() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "util-linux's setpriv");
        Path home = distributionWithoutAnArchiveForThisJdk();
        Path state = temp.resolve("state");
        Path cds = state.resolve("cds");
        Map<String, String> env = Map.of("RDMA_AGENT_CDS_DIR", cds.toString(), "RDMA_AGENT_HTTP_PORT", "0");
        List<ProcessHandle> training;
        try (AgentProcess first = AgentProcess.start(home, state, env, "--demo")) {
            first.awaitDemoBanner(Duration.ofSeconds(60));
            ProcessHandle agent = ProcessHandle.of(first.pid()).orElseThrow();
            Awaitility.await("training run started").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50)).until(() -> !trainingRuns(agent, cds).isEmpty());
            Awaitility.await("training run has written into " + cds).atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50)).until(() -> !files(cds).stream()
                            .filter(f -> f.contains(".partial-")).toList().isEmpty());
            training = trainingRuns(agent, cds);
            first.kill();
        }
        Awaitility.await("training run gone with its agent").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100)).until(() -> training.stream().noneMatch(ProcessHandle::isAlive));
        assertThat(ProcessHandle.allProcesses().filter(p -> commandLine(p).contains(cds.toString())))
                .as("no process of the killed agent's training (nor an AOT assembly JVM it started) left").isEmpty();
        // Had it gone on, it would have written its archive under the name only the killed agent would rename.
        assertThat(files(cds)).as("left by the killed run: what it wrote before the kill, no archive")
                .anyMatch(f -> f.contains(".partial-"))
                .noneMatch(f -> f.matches("agent-.+\\.(jsa|aot)\\.partial-\\d+"));

        try (AgentProcess second = AgentProcess.start(home, state, env, "--demo")) {
            second.awaitDemoBanner(Duration.ofSeconds(60));
            Awaitility.await("archive made").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> archive(cds) != null);
            assertThat(files(cds)).as("the killed run's partial files removed").containsExactlyInAnyOrder(
                    archive(cds).getFileName().toString(), archive(cds).getFileName() + ".home");
            assertThat(second.output()).contains("(a training run whose agent is gone)");
            assertThat(second.terminate(Duration.ofSeconds(15))).isZero();
        }
    }

    /** An agent.conf in the test's directory: this state directory, any free HTTP port. */
    private Path configWithStateDir(Path state) throws Exception {
        return Files.writeString(temp.resolve("agent.conf"), """
                agent {
                  runtime { stateDir = "%s" }
                  http.port = 0
                }
                """.formatted(state));
    }

    /** A copy of the built distribution whose packaged archives are renamed as another JDK build's. */
    private Path distributionWithoutAnArchiveForThisJdk() throws Exception {
        Path home = temp.resolve("rdma-node-agent");
        AgentProcessIT.copyTree(AgentProcessIT.DIST, home);
        Path packaged = home.resolve("lib/cds");
        if (Files.isDirectory(packaged)) {
            try (Stream<Path> archives = Files.list(packaged)) {
                // The archives only: their .home files (where each was made) stay as they are.
                for (Path archive : archives.filter(a -> a.toString().endsWith(".aot") || a.toString().endsWith(".jsa"))
                        .toList()) {
                    Files.move(archive, packaged.resolve("agent-17.0.0-other-build."
                            + (archive.toString().endsWith(".aot") ? "aot" : "jsa")));
                }
            }
        }
        return home;
    }

    private static List<ProcessHandle> trainingRuns(ProcessHandle agent, Path cds) {
        return agent.descendants().filter(p -> commandLine(p).contains(cds.toString())).toList();
    }

    private static String commandLine(ProcessHandle process) {
        return process.info().commandLine().orElse("");
    }

    private static List<String> files(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).toList();
        }
    }

    /** The archive's file name the start script gives for the JDK the agent runs on ({@code --print-jvm-flags}). */
    private static String archiveFileName(Path home) throws Exception {
        Process script = new ProcessBuilder(home.resolve("bin/rdma-node-agent").toString(), "--print-jvm-flags")
                .redirectErrorStream(true).start();
        String flags = new String(script.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(script.waitFor()).as(flags).isZero();
        return Stream.of(flags.trim().split("\\s+")).filter(f -> f.startsWith("-Drdma.agent.cds.file="))
                .findFirst().orElseThrow().split("=", 2)[1];
    }

    private static String cdsStatus(String base) throws Exception {
        var cds = AgentProcess.json(base + "/status").getAsJsonObject("agent").get("cds");
        return cds == null ? null : cds.getAsString();
    }

    private static Path archive(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("agent-.*\\.(jsa|aot)")).findFirst()
                    .orElse(null);
        }
    }
}
