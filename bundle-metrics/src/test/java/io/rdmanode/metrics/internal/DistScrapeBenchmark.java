// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Prints figures (not a test): the built distribution, started by its shipped start script (its JVM flags and
 * CDS archive), on the generated 8 PF x 128 VF host (1032 RDMA devices), next to node_exporter's infiniband
 * collector on the same tree in the same run: {@code /metrics} latency (requests interleaved, keep-alive,
 * Prometheus text, no gzip), series and page size, and the agent's RSS (VmRSS, VmHWM) after the scrapes.
 * Usage: {@code scripts/bench-metrics --dist [--same-page] [rounds] [distribution dir]}; {@code --same-page}
 * turns the agent's hw_counters off, leaving the families node_exporter serves too.
 */
public final class DistScrapeBenchmark {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private DistScrapeBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        // --same-page: without hw_counters, the families node_exporter's infiniband collector serves too
        boolean samePage = args.length > 0 && args[0].equals("--same-page");
        if (samePage) {
            args = Arrays.copyOfRange(args, 1, args.length);
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        Path home = Path.of(args.length > 1 ? args[1] : "dist/target/rdma-node-agent").toAbsolutePath();
        Path script = home.resolve("bin/rdma-node-agent");
        if (!Files.isExecutable(script)) {
            throw new IllegalStateException(script + " missing: ./mvnw -q package -DskipTests first");
        }
        Path parent = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of("/tmp");
        Path dir = Files.createTempDirectory(parent, "bench-metrics-dist");
        try {
            RecordedHost host = ScaleHost.sriov(dir.resolve("host"), 8, 128);
            int agentPort = freePort();
            Path conf = dir.resolve("agent.conf");
            Files.writeString(conf, """
                    agent {
                      runtime { stateDir = "%s", log.level = warn }
                      http { host = "127.0.0.1", port = %d }
                    }
                    discovery { backend = sysfs, sysfsRoot = "%s", devRoot = "%s" }
                    kubelet { pluginDir = "%s", registration = classic }
                    metrics { hwCounters = %s }
                    """.formatted(dir.resolve("state"), agentPort, host.sys(), host.dir().resolve("dev"),
                    dir.resolve("dp"), !samePage));
            Process agent = new ProcessBuilder(script.toString(), "--config", conf.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile()).start();
            int nePort = freePort();
            Process ne = new ProcessBuilder("/usr/bin/prometheus-node-exporter", "--path.sysfs=" + host.sys(),
                    "--collector.disable-defaults", "--collector.infiniband", "--web.disable-exporter-metrics",
                    "--web.listen-address=127.0.0.1:" + nePort, "--log.level=warn")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("node_exporter.log").toFile()).start();
            try {
                URI ours = URI.create("http://127.0.0.1:" + agentPort + "/metrics");
                URI theirs = URI.create("http://127.0.0.1:" + nePort + "/metrics");
                try {
                    waitFor(ours, "rdma_agent_infiniband_port_data_received_bytes_total{device=\"mlx5_1031\"");
                    waitFor(theirs, "node_infiniband");
                } catch (Exception e) {       // the logs go with the directory: show them
                    System.err.println(Files.readString(dir.resolve("agent.log")));
                    System.err.println(Files.readString(dir.resolve("node_exporter.log")));
                    throw e;
                }
                String before = field(Files.readString(Path.of("/proc/" + agent.pid() + "/status")), "VmRSS");
                String a = body(ours);
                String n = body(theirs);
                long cpuA = cpuMillis(agent.pid());
                long cpuN = cpuMillis(ne.pid());
                double[] ta = new double[rounds];
                double[] tn = new double[rounds];
                for (int i = -rounds / 4; i < rounds; i++) {
                    double x = time(ours);
                    double y = time(theirs);
                    if (i >= 0) {
                        ta[i] = x;
                        tn[i] = y;
                    }
                }
                cpuA = cpuMillis(agent.pid()) - cpuA;
                cpuN = cpuMillis(ne.pid()) - cpuN;
                Arrays.sort(ta);
                Arrays.sort(tn);
                String status = Files.readString(Path.of("/proc/" + agent.pid() + "/status"));
                System.out.printf("host: 8 PF x 128 VF, %d RDMA devices; %d rounds after %d warm-up; %s%n",
                        host.scan().devices().size(), rounds, rounds / 4, home);
                System.out.printf("%-16s %8s %9s | %-22s%n", "", "series", "bytes", "ms p50 / p90");
                System.out.printf("%-16s %8d %9d | %8.2f / %-8.2f%n", "rdma-node-agent", series(a), a.length(),
                        ta[rounds / 2], ta[rounds * 9 / 10]);
                System.out.printf("%-16s %8d %9d | %8.2f / %-8.2f%n", "node_exporter", series(n), n.length(),
                        tn[rounds / 2], tn[rounds * 9 / 10]);
                System.out.printf("latency ratio p50 agent/node_exporter: %.2f; per series: %.2f%n",
                        ta[rounds / 2] / tn[rounds / 2],
                        (ta[rounds / 2] / series(a)) / (tn[rounds / 2] / series(n)));
                System.out.printf("CPU per scrape (all threads, warm-up included): agent %.1f ms, node_exporter"
                        + " %.1f ms, ratio %.2f%s%n", cpuA / (rounds * 1.25), cpuN / (rounds * 1.25),
                        (double) cpuA / cpuN, samePage ? " (same page: hwCounters = false)" : "");
                System.out.printf("agent VmRSS after its first scrape answered: %s; after the scrapes: VmRSS %s,"
                        + " VmHWM %s (target <= 96 MB); of it RssAnon %s, RssFile %s (mapped files: the JVM, the"
                        + " CDS archive, jars)%n", before, field(status, "VmRSS"), field(status, "VmHWM"),
                        field(status, "RssAnon"), field(status, "RssFile"));
                if (System.getenv("JAVA_OPTS") != null && System.getenv("JAVA_OPTS").contains("NativeMemoryTracking")) {
                    for (String command : new String[] {"VM.native_memory summary", "GC.heap_info",
                            "GC.class_histogram"}) {
                        Process jcmd = new ProcessBuilder(("jcmd " + agent.pid() + " " + command).split(" "))
                                .redirectErrorStream(true).start();
                        System.out.println(new String(jcmd.getInputStream().readAllBytes()).lines().limit(Integer.getInteger("bench.jcmdLines", 40))
                                .collect(java.util.stream.Collectors.joining("\n")));
                        jcmd.waitFor(30, TimeUnit.SECONDS);
                    }
                }
            } finally {
                ne.destroy();
                agent.destroy();
                ne.waitFor(10, TimeUnit.SECONDS);
                agent.waitFor(20, TimeUnit.SECONDS);
            }
        } finally {
            try (Stream<Path> all = Files.walk(dir)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** utime + stime of a process and all its threads, from {@code /proc/<pid>/stat} (clock ticks of 10 ms). */
    private static long cpuMillis(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
    }

    private static long series(String page) {
        return page.lines().filter(l -> !l.isEmpty() && !l.startsWith("#")).count();
    }

    private static String field(String status, String name) {
        return status.lines().filter(l -> l.startsWith(name + ":")).map(l -> l.substring(name.length() + 1).trim())
                .findFirst().orElse("?");
    }

    private static void waitFor(URI uri, String content) {
        org.awaitility.Awaitility.await(uri + " serving " + content).atMost(Duration.ofSeconds(120))
                // not listening yet, or answering 503 while starting; one matcher (a second call replaces the first)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsMatching(e -> e instanceof IOException || e instanceof IllegalStateException)
                .until(() -> body(uri).contains(content));
    }

    private static String body(URI uri) throws IOException, InterruptedException {
        HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(uri + " answered " + r.statusCode());
        }
        return r.body();
    }

    private static double time(URI uri) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        body(uri);
        return (System.nanoTime() - t0) / 1e6;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
