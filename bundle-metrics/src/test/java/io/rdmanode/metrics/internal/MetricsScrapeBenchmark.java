// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import com.sun.management.OperatingSystemMXBean;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.metrics.internal.infiniband.InfinibandPortCollector;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Prints figures (not a test): {@code /metrics} scrape latency over HTTP of the RDMA port collector, next to
 * node_exporter's infiniband collector ({@code prometheus-node-exporter --path.sysfs} on the same unpacked
 * tree, every other collector off) in the same run, requests interleaved so machine load hits both alike.
 * Hosts: the three recorded ones and a generated 16 HCA x 2 port host. Run with {@code scripts/bench-metrics}.
 */
public final class MetricsScrapeBenchmark {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private MetricsScrapeBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        Path nodeExporter = Path.of("/usr/bin/prometheus-node-exporter");
        if (!Files.isExecutable(nodeExporter)) {
            throw new IllegalStateException(nodeExporter + " missing: apt-get install prometheus-node-exporter");
        }
        Path work = Files.createTempDirectory("bench-metrics");
        System.out.printf("rounds per host: %d (after %d warm-up), Prometheus text format, no gzip, keep-alive%n",
                rounds, rounds / 4);
        System.out.printf("%-16s %6s %7s | %-24s | %-24s | %s%n", "host", "ports", "series",
                "rdma-node-agent ms p50/p90", "node_exporter ms p50/p90", "ratio p50 (agent/node_exporter)");
        for (String host : List.of("cx6-ib", "rxe", "cx5-roce-sriov", "scale-16x2")) {
            Path dir = work.resolve(host);
            RecordedHost h = host.startsWith("scale") ? ScaleHost.generate(dir, 16, 2) : RecordedHost.unpack(host, dir);
            run(h, nodeExporter, rounds);
        }
    }

    private static void run(RecordedHost host, Path nodeExporter, int rounds) throws Exception {
        HostSnapshot s = host.scan();
        int ports = s.devices().stream().mapToInt(d -> d.ports().size()).sum();
        InfinibandPortCollector collector = new InfinibandPortCollector(() -> s, host.counters(), "", "", true);
        long series = collector.collect().stream().mapToLong(m -> m.getDataPoints().size()).sum();
        int nePort = freePort();
        Process ne = new ProcessBuilder(nodeExporter.toString(), "--path.sysfs=" + host.sys(),
                "--collector.disable-defaults", "--collector.infiniband", "--web.disable-exporter-metrics",
                "--web.listen-address=127.0.0.1:" + nePort, "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(host.dir().resolve("node_exporter.log").toFile()).start();
        try (ServedEndpoint ours = new ServedEndpoint(Map.of())) {
            ours.bind("infiniband", collector);
            URI neUri = URI.create("http://127.0.0.1:" + nePort + "/metrics");
            waitUntilUp(neUri);
            double[] a = new double[rounds];
            double[] n = new double[rounds];
            for (int i = -rounds / 4; i < rounds; i++) {
                double ta = get(ours.uri());
                double tn = get(neUri);
                if (i >= 0) {
                    a[i] = ta;
                    n[i] = tn;
                }
            }
            double neCpu = cpuMillis(ne.pid());
            for (int i = 0; i < rounds; i++) {
                get(neUri);
            }
            neCpu = (cpuMillis(ne.pid()) - neCpu) / rounds;
            Arrays.sort(a);
            Arrays.sort(n);
            System.out.printf("%-16s %6d %7d | %10.3f / %-11.3f | %10.3f / %-11.3f | %.2f%n", host.name(), ports,
                    series, a[rounds / 2], a[rounds * 9 / 10], n[rounds / 2], n[rounds * 9 / 10],
                    a[rounds / 2] / n[rounds / 2]);
            inProcess(collector, rounds, neCpu);
        } finally {
            ne.destroy();
            ne.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Collect + render without HTTP (wall, and this process's CPU over the loop, JIT and GC included), next to node_exporter's whole-process CPU per scrape (HTTP and Go runtime
     * included, from /proc in 10 ms ticks, averaged over the rounds).
     */
    private static void inProcess(InfinibandPortCollector collector, int rounds, double neCpu) throws IOException {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        double[] t = new double[rounds];
        long cpu0 = os.getProcessCpuTime();
        for (int i = 0; i < rounds; i++) {
            long t0 = System.nanoTime();
            ScrapeHandler.render(PrometheusTextFormatWriter.create(), collector.collect(), false);
            t[i] = (System.nanoTime() - t0) / 1e6;
        }
        double cpu = (os.getProcessCpuTime() - cpu0) / 1e6 / rounds;
        Arrays.sort(t);
        System.out.printf("%-16s   agent collect + render in-process: p50 %.3f ms, p90 %.3f ms, CPU %.3f ms/scrape;"
                + " node_exporter CPU %.3f ms/scrape (ratio %.2f)%n", "", t[rounds / 2], t[rounds * 9 / 10], cpu,
                neCpu, cpu / neCpu);
    }

    /** utime + stime of a process, milliseconds ({@code proc(5)}: fields 14 and 15, in clock ticks of 10 ms). */
    private static double cpuMillis(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10.0;
    }

    private static double get(URI uri) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        HttpResponse<byte[]> r = CLIENT.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        double ms = (System.nanoTime() - t0) / 1e6;
        if (r.statusCode() != 200 || r.body().length == 0) {
            throw new IllegalStateException(uri + " answered " + r.statusCode());
        }
        return ms;
    }

    private static void waitUntilUp(URI uri) {
        org.awaitility.Awaitility.await("node_exporter answering on " + uri).atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptionsMatching(e -> e instanceof IOException || e instanceof IllegalStateException)
                .until(() -> get(uri) >= 0);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
