// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import io.rdmanode.agent.Ttar;
import io.rdmanode.kubelet.testing.KubeletDouble;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The crash window (issue 27): after a SIGKILL nothing can hand over, so what counts is SIGKILL -> exec of the
 * shipped start script -> every pool registered with kubelet (goal: at most 0.5 s from exec). The built
 * distribution serves two pools of the recorded demo host (an SR-IOV pool and a shared pool) to the kubelet
 * double; each round SIGKILLs the running agent, starts it again at once over the same state directory and
 * times the registrations as kubelet receives them. Rounds alternate with the start path as it was before issue
 * 27 (the script's state-directory lookup, a {@code --print-setting} JVM run before the agent's, which it skips
 * now when the packaged archive is in use). Baseline in the same rounds: the same script exec'ing a JVM that does
 * nothing but print its version ({@code --version}). Driver of {@code scripts/bench-crash-window}; prints figures,
 * asserts nothing.
 *
 * <p>Usage: {@code CrashWindowBench DIST_DIR [ROUNDS [JAVA_OPTS_B]]}. With {@code JAVA_OPTS_B} the alternate rounds
 * run today's start path with those extra JVM flags instead of the path before issue 27: an A/B of a flag
 * (heap, JIT) under the same load. {@code JAVA_OPTS_B} = {@code fresh-cache}: the alternate rounds start without the
 * kept Felix bundle cache (its record removed first, so the agent starts from a fresh cache, as before it was kept).
 * {@code JAVA_OPTS_B} = {@code script:NAME}: the alternate rounds start through {@code bin/NAME} of the same
 * distribution instead of {@code bin/rdma-node-agent} (an A/B of the start script itself; the baseline keeps the
 * shipped one). {@code JAVA_OPTS_B} = {@code jdk:PATH}: the alternate rounds start with {@code JAVA_HOME=PATH} (an A/B
 * of two JDKs; each uses the distribution's packaged archive for it when there is one, see
 * {@code RDMA_AGENT_CDS_TRAIN} in the start script).
 */
public final class CrashWindowBench {

    static final List<String> RESOURCES = List.of("rdma/sriov_rdma", "rdma/hca_shared");
    /** JVM flags of the B rounds, or null: the B rounds are then the start path before issue 27. */
    private static String flagsB;
    private static final String FRESH_CACHE = "fresh-cache";
    private static final String SCRIPT = "script:";
    private static final String JDK = "jdk:";

    private CrashWindowBench() {
    }

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(args.length > 0 ? args[0] : "dist/target/rdma-node-agent").toAbsolutePath();
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        flagsB = args.length > 2 ? args[2] : null;
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "cw");
        try {
            run(dist, rounds, dir);
        } finally {
            try (Stream<Path> all = Files.walk(dir)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void run(Path dist, int rounds, Path dir) throws Exception {
        Path host = dir.resolve("host");
        Ttar.unpack(dist.resolve("config/demo-host/cx5-roce-sriov.ttar"), host);
        Path pluginDir = Files.createDirectories(dir.resolve("dp"));
        Path podResources = dir.resolve("pr.sock");
        Path state = dir.resolve("state");
        Path config = Files.writeString(dir.resolve("agent.conf"), """
                agent {
                  runtime { stateDir = "%1$s", log.level = info }
                  http { host = "127.0.0.1", port = 0 }
                }
                discovery { backend = sysfs, sysfsRoot = "%2$s/sys", devRoot = "%2$s/dev" }
                kubelet { pluginDir = "%3$s", registration = classic, podResourcesSocket = "%4$s" }
                deviceplugin.common { hostDevRoot = "%2$s/dev", cdiSpecDirs = ["%1$s/cdi"] }
                deviceplugin.sriov.pools = [
                  { name = sriov_rdma, selectors { vendors = ["15b3"], isRdma = true } }
                ]
                deviceplugin.shared.pools = [
                  { name = hca_shared, rdmaHcaMax = 100, selectors { vendors = ["15b3"], deviceIDs = ["1017"] } }
                ]
                """.formatted(state, host, pluginDir, podResources));
        Path script = dist.resolve("bin/rdma-node-agent");
        List<Double> fromKill = new ArrayList<>();
        List<Double> fromExec = new ArrayList<>();
        List<Double> baseline = new ArrayList<>();
        List<Double> lookupFromExec = new ArrayList<>();
        String loadBefore = Files.readString(Path.of("/proc/loadavg")).trim();
        try (KubeletDouble kubelet = KubeletDouble.start(pluginDir, podResources)) {
            Process agent = start(script, config, dir.resolve("agent-0.log"), null);
            awaitAll(kubelet, 1, Duration.ofSeconds(60));
            Thread.sleep(2000);                           // past the start: the CDS archive, first scrape...
            for (int round = 1; round <= 2 * rounds; round++) {
                boolean withLookup = round % 2 == 0;
                long[] before = RESOURCES.stream().mapToLong(kubelet::registrations).toArray();
                long kill = System.nanoTime();
                agent.destroyForcibly();                  // SIGKILL
                agent.waitFor();
                long exec = System.nanoTime();
                if (withLookup && flagsB == null) {       // what the script ran first before issue 27
                    new ProcessBuilder(script.toString(), "--print-setting", "agent.runtime.stateDir", "--config",
                            config.toString()).redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
                }
                boolean freshCache = withLookup && FRESH_CACHE.equals(flagsB);
                if (freshCache) {
                    Files.deleteIfExists(state.resolve("felix-cache/rdma-agent-bundles.properties"));
                }
                boolean otherScript = withLookup && flagsB != null && flagsB.startsWith(SCRIPT);
                boolean otherJdk = withLookup && flagsB != null && flagsB.startsWith(JDK);
                agent = start(otherScript ? script.resolveSibling(flagsB.substring(SCRIPT.length())) : script, config,
                        dir.resolve("agent-" + round + ".log"),
                        withLookup && !freshCache && !otherScript && !otherJdk ? flagsB : null,
                        otherJdk ? flagsB.substring(JDK.length()) : null);
                long registered = 0;
                for (int i = 0; i < RESOURCES.size(); i++) {
                    registered = Math.max(registered, kubelet.awaitRegistrations(RESOURCES.get(i), before[i] + 1,
                            Duration.ofSeconds(60)));
                }
                if (withLookup) {
                    lookupFromExec.add((registered - exec) / 1e6);
                } else {
                    fromKill.add((registered - kill) / 1e6);
                    fromExec.add((registered - exec) / 1e6);
                    baseline.add(version(script));
                }
                Thread.sleep(500);                        // the agent's start-up tail (not on the window)
            }
            agent.destroyForcibly().waitFor();
            System.out.println(lastRegistrationLines(dir.resolve("agent-" + (2 * rounds - 1) + ".log")));
            Path kept = Path.of("dist/target/crash-window-last.log");
            if (Files.isDirectory(kept.getParent())) {
                Files.copy(dir.resolve("agent-" + (2 * rounds - 1) + ".log"), kept,
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                System.out.println("the last round's whole log: " + kept);
            }
        }
        String loadAfter = Files.readString(Path.of("/proc/loadavg")).trim();
        System.out.printf(Locale.ROOT, "crash window, %d rounds each, %d pools (%s), %d CPUs; load before: %s; after: %s%n",
                rounds, RESOURCES.size(), String.join(", ", RESOURCES), Runtime.getRuntime().availableProcessors(),
                loadBefore, loadAfter);
        System.out.printf(Locale.ROOT, "%-44s %9s %9s %9s%n", "", "p50 ms", "p99 ms", "max ms");
        row("SIGKILL -> every pool registered", fromKill);
        row("exec -> every pool registered (goal <= 500)", fromExec);
        row(flagsB == null ? "  before (+ the script's stateDir lookup)"
                : FRESH_CACHE.equals(flagsB) ? "  B: a fresh Felix bundle cache"
                : flagsB.startsWith(SCRIPT) ? "  B: bin/" + flagsB.substring(SCRIPT.length())
                : flagsB.startsWith(JDK) ? "  B: JAVA_HOME=" + flagsB.substring(JDK.length()) : "  B: JAVA_OPTS=" + flagsB,
                lookupFromExec);
        row("baseline: exec -> script + JVM --version exit", baseline);
    }

    private static Process start(Path script, Path config, Path log, String extraFlags) throws IOException {
        return start(script, config, log, extraFlags, null);
    }

    private static Process start(Path script, Path config, Path log, String extraFlags, String javaHome)
            throws IOException {
        ProcessBuilder builder = new ProcessBuilder(script.toString(), "--config", config.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        if (javaHome != null) {
            builder.environment().put("JAVA_HOME", javaHome);
        }
        if (extraFlags != null) {
            String inherited = System.getenv("JAVA_OPTS");
            builder.environment().put("JAVA_OPTS", (inherited == null ? "" : inherited + " ") + extraFlags);
        }
        return builder.start();
    }

    private static void awaitAll(KubeletDouble kubelet, long count, Duration timeout) {
        RESOURCES.forEach(r -> kubelet.awaitRegistrations(r, count, timeout));
    }

    private static double version(Path script) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(script.toString(), "--version").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        p.waitFor();
        return (System.nanoTime() - t0) / 1e6;
    }

    /** The last round's log lines that show where the start went, for the figures' reader. */
    private static String lastRegistrationLines(Path log) throws IOException {
        StringBuilder out = new StringBuilder("last round's start (agent log):\n");
        for (String line : Files.readAllLines(log)) {
            if (line.contains("starting rdma-node-agent") || line.contains("registered resource=")
                    || line.contains("device-plugin host") || line.contains("device-plugin layer started")
                    || line.contains("agent ready in")) {
                out.append("  ").append(line.length() > 200 ? line.substring(0, 200) : line).append('\n');
            }
        }
        return out.toString();
    }

    private static void row(String name, List<Double> samples) {
        List<Double> sorted = samples.stream().sorted().toList();
        System.out.printf(Locale.ROOT, "%-44s %9.0f %9.0f %9.0f%n", name, percentile(sorted, 50),
                percentile(sorted, 99), sorted.get(sorted.size() - 1));
    }

    /** Nearest rank. */
    static double percentile(List<Double> sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size(), rank) - 1));
    }
}
