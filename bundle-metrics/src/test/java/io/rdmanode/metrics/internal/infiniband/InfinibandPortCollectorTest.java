// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.metrics.internal.RecordedHost;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InfinibandPortCollectorTest {

    @TempDir
    Path dir;

    static String render(MetricSnapshots snapshots) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, snapshots);
        return out.toString(StandardCharsets.UTF_8);
    }

    static String scrape(RecordedHost host) throws IOException {
        HostSnapshot s = host.scan();
        return render(new InfinibandPortCollector(() -> s, host.counters(), "", "", true).collect());
    }

    @ParameterizedTest
    @ValueSource(strings = {"cx5-roce-sriov", "cx6-ib", "rxe", "ndr-ib"})
    void matchesGoldenFileForRecordedHost(String host) throws IOException {
        String text = scrape(RecordedHost.unpack(host, dir));
        GoldenFiles.assertMatches("expected-" + host + ".prom", text);
    }

    /** The same scrape as OpenMetrics 1.0 (what Prometheus negotiates): units, info type, {@code # EOF}. */
    @Test
    void matchesOpenMetricsGoldenFile() throws IOException {
        RecordedHost host = RecordedHost.unpack("cx6-ib", dir);
        HostSnapshot s = host.scan();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        OpenMetricsTextFormatWriter.create().write(out,
                new InfinibandPortCollector(() -> s, host.counters(), "", "", true).collect());
        GoldenFiles.assertMatches("expected-cx6-ib.om.txt", out.toString(StandardCharsets.UTF_8));
    }

    /** Values worked out by hand from cx6-ib.ttar (see counter-values.py). */
    @Test
    void convertsDataWordsToBytesAndKeepsUnsignedValues() throws IOException {
        String text = scrape(RecordedHost.unpack("cx6-ib", dir));
        // port_rcv_data = 1234567890 words of 4 bytes
        assertThat(text).contains(
                "rdma_agent_infiniband_port_data_received_bytes_total{device=\"mlx5_0\",port=\"1\"} 4.93827156E9\n");
        // port_xmit_data = 2^62 words = 2^64 bytes; symbol_error = 2^64 - 1 (u64), both beyond a signed long
        assertThat(text).contains(
                "rdma_agent_infiniband_port_data_transmitted_bytes_total{device=\"mlx5_0\",port=\"1\"} 1.8446744073709552E19\n",
                "rdma_agent_infiniband_symbol_error_total{device=\"mlx5_0\",port=\"1\"} 1.8446744073709552E19\n");
        // port_xmit_wait reads "N/A (no PMA)": no series rather than 0
        assertThat(text).doesNotContain("port_transmit_wait");
        assertThat(text).contains(
                "rdma_agent_infiniband_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"} 2.5E10\n",
                "rdma_agent_infiniband_state_id{device=\"mlx5_0\",port=\"1\"} 4.0\n",
                "rdma_agent_infiniband_lifespan_seconds{device=\"mlx5_0\",port=\"1\"} 0.01\n",
                "rdma_agent_infiniband_info{board_id=\"MT_0000000012\",device=\"mlx5_0\",firmware_version=\"20.38.1002\","
                        + "hca_type=\"MT4119\"} 1\n");
    }

    /** Values worked out by hand from cx5-roce-sriov.ttar: device k = 12, and the VF that is down (mlx5_8). */
    @Test
    void reportsEachVirtualFunctionOfTheSriovHost() throws IOException {
        String text = scrape(RecordedHost.unpack("cx5-roce-sriov", dir));
        String l = "{device=\"mlx5_12\",port=\"1\"} ";
        assertThat(text).contains(
                "rdma_agent_infiniband_port_data_received_bytes_total" + l + "4000048.0\n",      // 4 * (1000000 + 12)
                "rdma_agent_infiniband_port_data_transmitted_bytes_total" + l + "8000048.0\n",   // 4 * (2000000 + 12)
                "rdma_agent_infiniband_vl15_dropped_total" + l + "1201.0\n",                     // 100 * 12 + 1st file
                "rdma_agent_infiniband_out_of_buffer_drops_total" + l + "13007.0\n",             // 1000 * 13 + 7th file
                "rdma_agent_infiniband_port_info{device=\"mlx5_12\",link_layer=\"ethernet\",netdev=\"ens2f0v2\","
                        + "port=\"1\"} 1\n",
                "rdma_agent_infiniband_state_id{device=\"mlx5_8\",port=\"1\"} 1.0\n",
                "rdma_agent_infiniband_rate_bytes_per_second{device=\"mlx5_8\",port=\"1\"} 5.0E9\n");
    }

    @Test
    void reportsEveryHwCounterOfSoftRoceWithoutPmaCounters() throws IOException {
        String text = scrape(RecordedHost.unpack("rxe", dir));
        // rxe1: k = 1, hw_counters sorted: ack_deferred is 1st, duplicate_request 3rd -> 2000 + i
        assertThat(text).contains("rdma_agent_infiniband_hw_ack_deferred_total{device=\"rxe1\",port=\"1\"} 2001.0\n",
                "rdma_agent_infiniband_duplicate_requests_packets_total{device=\"rxe1\",port=\"1\"} 2003.0\n",
                "rdma_agent_infiniband_hw_link_downed_total{device=\"rxe0\",port=\"1\"} 1005.0\n");
        assertThat(text).doesNotContain("port_data_received_bytes");
    }

    @Test
    void scrapeReadsLinkStateFreshButNoNewFilesUntilTheNextRevision() throws IOException {
        RecordedHost host = RecordedHost.unpack("cx6-ib", dir);
        AtomicReference<HostSnapshot> snapshot = new AtomicReference<>(host.scan());
        InfinibandPortCollector collector = new InfinibandPortCollector(snapshot::get, host.counters(), "", "", true);
        Path port = host.sys().resolve("class/infiniband/mlx5_0/ports/1");
        Files.writeString(port.resolve("state"), "1: DOWN\n");
        Files.writeString(port.resolve("counters/port_rcv_data"), "7\n");
        Files.writeString(port.resolve("counters/port_rcv_discards"), "5\n");      // new file: not in the plan
        String text = render(collector.collect());
        assertThat(text).contains("rdma_agent_infiniband_state_id{device=\"mlx5_0\",port=\"1\"} 1.0\n",
                "rdma_agent_infiniband_port_data_received_bytes_total{device=\"mlx5_0\",port=\"1\"} 28.0\n");
        assertThat(text).doesNotContain("port_discards_received");

        snapshot.set(host.scan().withRevision(snapshot.get().revision() + 1, java.time.Instant.now()));
        assertThat(render(collector.collect()))
                .contains("rdma_agent_infiniband_port_discards_received_total{device=\"mlx5_0\",port=\"1\"} 5.0\n");
    }

    @Test
    void reportsDeviceLevelHwCountersWithADeviceLabelOnly() throws IOException {
        RecordedHost host = RecordedHost.unpack("cx6-ib", dir);
        Path hw = host.sys().resolve("class/infiniband/mlx5_0/hw_counters");
        Files.createDirectories(hw);
        Files.writeString(hw.resolve("num_page_faults"), "12\n");
        Files.writeString(hw.resolve("lifespan"), "10\n");
        String text = scrape(host);
        assertThat(text).contains("rdma_agent_infiniband_device_hw_num_page_faults_total{device=\"mlx5_0\"} 12.0\n",
                "rdma_agent_infiniband_device_lifespan_seconds{device=\"mlx5_0\"} 0.01\n");
    }

    @Test
    void anInvalidDevicePatternIsReportedWithItsKey() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> InfinibandPortCollector.deviceFilter("", "mlx5_[0-"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("metrics.deviceExclude is not a regular expression: ")
                .hasMessageContaining("'mlx5_[0-'");
    }

    @Test
    void devicesAreFilteredLikeNodeExporter() throws IOException {
        RecordedHost host = RecordedHost.unpack("cx5-roce-sriov", dir);
        HostSnapshot s = host.scan();
        String text = render(new InfinibandPortCollector(() -> s, host.counters(), "mlx5_1.*", "mlx5_1[0-5]", false)
                .collect());
        assertThat(text).contains("device=\"mlx5_1\"", "device=\"mlx5_16\"", "device=\"mlx5_17\"")
                .doesNotContain("device=\"mlx5_0\"", "device=\"mlx5_12\"", "device=\"mlx5_2\"", "out_of_buffer");
    }

    /** Issue 8 item 11: the device attributes do not depend on the port having counter files. */
    @Test
    void keepsBoardIdAndHcaTypeOfAnHcaWithoutCounterFiles() throws IOException {
        RecordedHost host = RecordedHost.unpack("cx6-ib", dir);
        Path port = host.sys().resolve("class/infiniband/mlx5_0/ports/1");
        deleteTree(port.resolve("counters"));
        deleteTree(port.resolve("hw_counters"));
        String text = scrape(host);
        assertThat(text).doesNotContain("port_data_received_bytes");
        assertThat(text).contains(
                "rdma_agent_infiniband_info{board_id=\"MT_0000000012\",device=\"mlx5_0\",firmware_version=\"20.38.1002\","
                        + "hca_type=\"MT4119\"} 1\n",
                // from the discovery snapshot: no counter files tell where the port directory is
                "rdma_agent_infiniband_state_id{device=\"mlx5_0\",port=\"1\"} 4.0\n",
                "rdma_agent_infiniband_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"} 2.5E10\n");
    }

    /** Issue 8 item 12: 2^63 + 1025 rounds once to the nearest double, as node_exporter and Python print it. */
    @Test
    void roundsCountersAbove2To63Once() throws IOException {
        String text = scrape(RecordedHost.unpack("ndr-ib", dir));
        assertThat(text).contains(
                "rdma_agent_infiniband_port_packets_received_total{device=\"mlx5_0\",port=\"1\"} 9.223372036854778E18\n",
                "rdma_agent_infiniband_legacy_packets_received_total{device=\"mlx5_0\",port=\"1\"} 9.223372036854778E18\n");
    }

    /** Issue 8 item 13: node_exporter's 8 {@code legacy_*} families from {@code counters_ext/} (see ndr-ib.py). */
    @Test
    void servesTheLegacyFamiliesOfCountersExt() throws IOException {
        String text = scrape(RecordedHost.unpack("ndr-ib", dir));
        String l = "{device=\"mlx5_0\",port=\"1\"} ";
        assertThat(text).contains(
                "rdma_agent_infiniband_legacy_multicast_packets_received_total" + l + "11.0\n",
                "rdma_agent_infiniband_legacy_multicast_packets_transmitted_total" + l + "12.0\n",
                "rdma_agent_infiniband_legacy_data_received_bytes_total" + l + "4.000000052E9\n",
                "rdma_agent_infiniband_legacy_unicast_packets_received_total" + l + "15.0\n",
                "rdma_agent_infiniband_legacy_unicast_packets_transmitted_total" + l + "16.0\n",
                "rdma_agent_infiniband_legacy_data_transmitted_bytes_total" + l + "8.000000068E9\n",
                "rdma_agent_infiniband_legacy_packets_transmitted_total" + l + "18.0\n");
    }

    /** Issue 8 item 14: an InfiniBand port's IPoIB netdev, matched by the GID in its hardware address. */
    @Test
    void namesTheIpoibNetdevOfAnInfinibandPort() throws IOException {
        String text = scrape(RecordedHost.unpack("cx6-ib", dir));
        assertThat(text).contains("rdma_agent_infiniband_port_info{device=\"mlx5_0\",link_layer=\"infiniband\","
                + "netdev=\"ib0\",port=\"1\"} 1\n");
    }

    private static void deleteTree(Path root) throws IOException {
        try (var files = Files.walk(root)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
