// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.metrics.internal.infiniband.InfinibandPortCollector;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The page with the RDMA families streamed (written straight from the values read) is the page client_java
 * writes from the same collector's snapshots, byte for byte, in both text formats: on every recorded host and a
 * generated SR-IOV host, with hw_counters on and off, values read in parallel slices, and other collectors'
 * families sorting before, among and after the RDMA ones.
 */
class StreamedPageTest {

    @TempDir
    Path dir;

    private final ExecutorService readers = Executors.newFixedThreadPool(3);

    @AfterEach
    void stop() {
        readers.shutdownNow();
    }

    static Stream<Arguments> pages() {
        return Stream.of("cx5-roce-sriov", "cx6-ib", "ndr-ib", "rxe", "scale").flatMap(host ->
                Stream.of(true, false).flatMap(hw -> Stream.of(true, false).map(om -> Arguments.of(host, hw, om))));
    }

    @ParameterizedTest(name = "{0} hwCounters={1} openMetrics={2}")
    @MethodSource("pages")
    void streamedPageIsClientJavasPage(String host, boolean hwCounters, boolean openMetrics) throws IOException {
        RecordedHost h = host.equals("scale") ? ScaleHost.sriov(dir, 2, 8) : RecordedHost.unpack(host, dir);
        HostSnapshot s = h.scan();
        PrometheusRegistry registry = new PrometheusRegistry();
        CollectorWhiteboard whiteboard = new CollectorWhiteboard(registry);
        whiteboard.add("infiniband", new InfinibandPortCollector(() -> s, h.counters(), "", "", hwCounters, 4,
                readers));
        whiteboard.add("others", others());
        ExpositionFormatWriter writer = openMetrics ? OpenMetricsTextFormatWriter.create()
                : PrometheusTextFormatWriter.create();
        whiteboard.scrape();                        // the duration gauge has its points from the second scrape on

        String streamed = withoutDurations(ScrapeHandler.render(writer, whiteboard, false));
        String snapshots = withoutDurations(ScrapeHandler.render(writer, whiteboard.scrape(), false));

        assertThat(streamed).contains("rdma_agent_infiniband_port_info{", "process_fake", "zzz_last", "aaa_first");
        assertThat(streamed).isEqualTo(snapshots);
    }

    @ParameterizedTest(name = "{0} hwCounters={1} openMetrics={2}")
    @MethodSource("pages")
    void gzippedStreamedPageIsTheSamePage(String host, boolean hwCounters, boolean openMetrics) throws IOException {
        if (!host.equals("cx6-ib")) {
            return;
        }
        RecordedHost h = RecordedHost.unpack(host, dir);
        HostSnapshot s = h.scan();
        CollectorWhiteboard whiteboard = new CollectorWhiteboard(new PrometheusRegistry());
        whiteboard.add("infiniband", new InfinibandPortCollector(() -> s, h.counters(), "", "", hwCounters));
        ExpositionFormatWriter writer = openMetrics ? OpenMetricsTextFormatWriter.create()
                : PrometheusTextFormatWriter.create();
        whiteboard.scrape();
        byte[] gz = ScrapeHandler.render(writer, whiteboard, true);
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            assertThat(withoutDurations(in.readAllBytes()))
                    .isEqualTo(withoutDurations(ScrapeHandler.render(writer, whiteboard.scrape(), false)));
        }
    }

    /** Families of another collector around the RDMA ones: first, last, and between two of them. */
    private static MultiCollector others() {
        return () -> new MetricSnapshots(
                gauge("aaa_first", "sorts before everything", 1),
                gauge("rdma_agent_infiniband_pod_devices", "between the RDMA families", 0),
                gauge("process_fake", "a \"quoted\" help\\with a backslash", 12345678.5),
                new CounterSnapshot(new MetricMetadata("zzz_last", "sorts after everything"),
                        List.of(new CounterDataPointSnapshot(3, Labels.of("v", "a \"b\"\nc\\"), null, 0L))));
    }

    private static GaugeSnapshot gauge(String name, String help, double v) {
        return new GaugeSnapshot(new MetricMetadata(name, help), List.of(new GaugeDataPointSnapshot(v, Labels.EMPTY,
                null)));
    }

    /** The whiteboard's own collect-duration gauge differs from one scrape to the next. */
    private static String withoutDurations(byte[] page) {
        return new String(page, StandardCharsets.UTF_8).lines()
                .filter(l -> !l.startsWith("rdma_agent_metrics_collector_duration_seconds{"))
                .collect(Collectors.joining("\n"));
    }
}
