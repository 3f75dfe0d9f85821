// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.metrics.internal.ExternalTool;
import io.rdmanode.metrics.internal.RecordedHost;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Value by value against Debian's node_exporter (1.5, {@code --collector.infiniband}) on the same unpacked tree:
 * every {@code node_infiniband_*} series it serves is served under {@code rdma_agent_infiniband_*} with the same
 * labels and the same value.
 */
class NodeExporterParityTest {

    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"ndr-ib", "cx6-ib", "cx5-roce-sriov"})
    void servesEveryNodeExporterInfinibandSeriesWithItsValue(String name) throws Exception {
        Path nodeExporter = ExternalTool.require("prometheus-node-exporter", "prometheus-node-exporter");
        RecordedHost host = RecordedHost.unpack(name, dir);
        HostSnapshot s = host.scan();
        Map<String, Double> ours = series(InfinibandPortCollectorTest.render(
                new InfinibandPortCollector(() -> s, host.counters(), "", "", true).collect()), "rdma_agent_infiniband_");
        Map<String, Double> theirs = series(scrapeNodeExporter(nodeExporter, host.sys()), "node_infiniband_");
        assertThat(theirs).as("node_exporter served infiniband series").isNotEmpty();
        if (name.equals("ndr-ib")) {
            assertThat(theirs.keySet()).filteredOn(k -> k.startsWith("legacy_")).hasSize(8);
        }
        // The one deliberate difference: cx6-ib's port_xmit_data is 2^62 words. node_exporter multiplies by 4 in
        // uint64 and wraps to 0; we serve 2^64 bytes (what the counter says, and monotonic for rate()).
        String wrapped = "port_data_transmitted_bytes_total{device=\"mlx5_0\",port=\"1\"}";
        if (!name.equals("cx5-roce-sriov")) {
            assertThat(theirs.remove(wrapped)).isEqualTo(0.0);
            assertThat(ours.remove(wrapped)).isEqualTo(0x1p64);
        }
        assertThat(ours).containsAllEntriesOf(theirs);
    }

    private String scrapeNodeExporter(Path binary, Path sys) throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Process p = new ProcessBuilder(binary.toString(), "--path.sysfs=" + sys, "--collector.disable-defaults",
                "--collector.infiniband", "--web.disable-exporter-metrics", "--log.level=warn",
                "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(dir.resolve("node_exporter.log").toFile()).start();
        try {
            URI uri = URI.create("http://127.0.0.1:" + port + "/metrics");
            AtomicReference<String> body = new AtomicReference<>();
            Awaitility.await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
                HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(uri).build(),
                        HttpResponse.BodyHandlers.ofString());
                body.set(r.body());
                return r.statusCode() == 200;
            });
            return body.get();
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** {@code name{labels}} after the prefix, with labels in name order (both writers sort them), to value. */
    static Map<String, Double> series(String text, String prefix) {
        Map<String, Double> out = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith(prefix)) {
                int space = line.lastIndexOf(' ');
                out.put(line.substring(prefix.length(), space), Double.parseDouble(line.substring(space + 1)));
            }
        }
        return out;
    }
}
