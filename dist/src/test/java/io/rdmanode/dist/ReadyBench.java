// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import io.rdmanode.agent.Ttar;
import io.rdmanode.kubelet.testing.KubeletDouble;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Cold start to ready (issue 23): exec of the shipped start script (its JVM flags and packaged CDS archive) on the
 * recorded demo host with two pools, to the first {@code /readyz} answering 200 (every pool registered with the
 * kubelet double), and the agent's RSS (VmRSS) at that moment. Each round starts over an empty state directory and
 * stops the agent with SIGTERM. Baseline in the same rounds, interleaved: a plain JVM start, {@code java -version}
 * (exec to exit) of the JVM the script uses. Driver of {@code scripts/bench-all}'s start rows; prints figures,
 * asserts nothing.
 *
 * <p>Usage: {@code ReadyBench DIST_DIR [ROUNDS]} (default 7).
 */
public final class ReadyBench {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private ReadyBench() {
    }

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(args.length > 0 ? args[0] : "dist/target/rdma-node-agent").toAbsolutePath();
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "ready");
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
        Path script = dist.resolve("bin/rdma-node-agent");
        String java = System.getenv("JAVA_HOME") == null ? "java" : System.getenv("JAVA_HOME") + "/bin/java";
        List<Double> ready = new ArrayList<>();
        List<Double> rss = new ArrayList<>();
        List<Double> baseline = new ArrayList<>();
        String loadBefore = Files.readString(Path.of("/proc/loadavg")).trim();
        try (KubeletDouble kubelet = KubeletDouble.start(pluginDir, podResources)) {
            for (int round = 0; round <= rounds; round++) {          // round 0 warms the page cache
                double base = version(java);
                Path state = dir.resolve("state-" + round);
                int port = freePort();
                Path config = Files.writeString(dir.resolve("agent-" + round + ".conf"), """
                        agent {
                          runtime { stateDir = "%1$s", log.level = info }
                          http { host = "127.0.0.1", port = %5$d }
                        }
                        discovery { backend = sysfs, sysfsRoot = "%2$s/sys", devRoot = "%2$s/dev" }
                        kubelet { pluginDir = "%3$s", registration = classic, podResourcesSocket = "%4$s" }
                        deviceplugin.common { hostDevRoot = "%2$s/dev", cdiSpecDirs = ["%1$s/cdi"] }
                        deviceplugin.sriov.pools = [
                          { name = sriov_rdma, selectors { vendors = ["15b3"], isRdma = true } }
                        ]
                        deviceplugin.shared.pools = [
                          { name = hca_shared, rdmaHcaMax = 100,
                            selectors { vendors = ["15b3"], deviceIDs = ["1017"] } }
                        ]
                        """.formatted(state, host, pluginDir, podResources, port));
                ProcessBuilder pb = new ProcessBuilder(script.toString(), "--config", config.toString())
                        .redirectErrorStream(true).redirectOutput(dir.resolve("agent-" + round + ".log").toFile());
                pb.environment().put("RDMA_AGENT_CDS_DIR", "");
                URI readyz = URI.create("http://127.0.0.1:" + port + "/readyz");
                long t0 = System.nanoTime();
                Process agent = pb.start();
                try {
                    while (status(readyz) != 200) {
                        if (!agent.isAlive()) {
                            throw new IllegalStateException("agent exited early: "
                                    + Files.readString(dir.resolve("agent-" + round + ".log")));
                        }
                        if (System.nanoTime() - t0 > 60_000_000_000L) {
                            throw new IllegalStateException("agent not ready after 60 s");
                        }
                        Thread.sleep(5);
                    }
                    double ms = (System.nanoTime() - t0) / 1e6;
                    double kb = vmRssKb(agent.pid());
                    if (round > 0) {
                        ready.add(ms);
                        rss.add(kb / 1024);
                        baseline.add(base);
                    }
                } finally {
                    agent.destroy();                                 // SIGTERM
                    if (!agent.waitFor(20, TimeUnit.SECONDS)) {
                        agent.destroyForcibly().waitFor();
                    }
                }
            }
        }
        Path kept = Path.of("dist/target/ready-last.log");
        if (Files.isDirectory(kept.getParent())) {
            Files.copy(dir.resolve("agent-" + rounds + ".log"), kept, StandardCopyOption.REPLACE_EXISTING);
            System.out.println("the last round's whole log: " + kept);
        }
        String loadAfter = Files.readString(Path.of("/proc/loadavg")).trim();
        System.out.printf(Locale.ROOT, "start to ready, %d rounds each, interleaved, %d CPUs; load before: %s;"
                + " after: %s%n",
                rounds, Runtime.getRuntime().availableProcessors(), loadBefore, loadAfter);
        System.out.printf(Locale.ROOT, "%-44s %9s %9s %9s%n", "", "median", "min", "max");
        row("exec -> /readyz 200 (ms)", ready);
        row("RSS at ready (MB)", rss);
        row("baseline: java -version exec -> exit (ms)", baseline);
    }

    private static int status(URI uri) throws InterruptedException {
        try {
            return CLIENT.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;                                              // not listening yet
        }
    }

    private static double vmRssKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Double.parseDouble(line.substring(6).trim().split("\\s+")[0]);
            }
        }
        return Double.NaN;
    }

    private static double version(String java) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        new ProcessBuilder(java, "-version").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        return (System.nanoTime() - t0) / 1e6;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void row(String name, List<Double> samples) {
        List<Double> sorted = samples.stream().sorted().toList();
        System.out.printf(Locale.ROOT, "%-44s %9.1f %9.1f %9.1f%n", name, sorted.get(sorted.size() / 2), sorted.get(0),
                sorted.get(sorted.size() - 1));
    }
}
