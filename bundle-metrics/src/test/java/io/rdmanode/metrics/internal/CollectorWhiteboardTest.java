// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricFamilyDescriptor;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The whiteboard as a hot swap sees it: a bundle's collector service comes, goes (bundle stopped: its series go
 * with it) and comes back from the updated bundle with the same metric names.
 */
class CollectorWhiteboardTest {

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final CollectorWhiteboard whiteboard = new CollectorWhiteboard(registry);

    private String scrape() throws IOException {
        return new String(ScrapeHandler.render(PrometheusTextFormatWriter.create(), registry.scrape(), false),
                StandardCharsets.UTF_8);
    }

    /** What a device-plugin bundle would register: its own counter, as a MultiCollector service. */
    private static MultiCollector allocations(long count) {
        Counter c = Counter.builder().name("rdma_agent_deviceplugin_allocations").help("Allocate calls")
                .labelNames("resource", "result").build();
        c.labelValues("rdma/hca_a", "ok").inc(count);
        return () -> new MetricSnapshots(c.collect());
    }

    @Test
    void removingACollectorServiceRemovesItsMetricsAndItsSuccessorMayReuseTheNames() throws IOException {
        MultiCollector before = allocations(3);
        whiteboard.add("deviceplugin-shared", before);
        assertThat(scrape()).contains(
                "rdma_agent_deviceplugin_allocations_total{resource=\"rdma/hca_a\",result=\"ok\"} 3.0\n",
                "rdma_agent_metrics_collectors 1.0\n");

        whiteboard.remove(before);
        assertThat(scrape()).doesNotContain("rdma_agent_deviceplugin_allocations")
                .contains("rdma_agent_metrics_collectors 0.0\n");

        whiteboard.add("deviceplugin-shared", allocations(1));
        assertThat(scrape())
                .contains("rdma_agent_deviceplugin_allocations_total{resource=\"rdma/hca_a\",result=\"ok\"} 1.0\n");
    }

    @Test
    void aThrowingCollectorLosesOnlyItsOwnMetricsAndIsCounted() throws IOException {
        whiteboard.add("good", allocations(2));
        whiteboard.add("broken", () -> {
            throw new IllegalStateException("sysfs gone");
        });
        assertThat(scrape())
                .contains("rdma_agent_deviceplugin_allocations_total{resource=\"rdma/hca_a\",result=\"ok\"} 2.0\n");
        // the registry collects in no fixed order: the endpoint's own figures show this scrape's failure or not yet
        assertThat(scrape()).containsPattern("rdma_agent_metrics_collector_errors_total\\{collector=\"broken\"} [12]\\.0\n")
                .contains("rdma_agent_metrics_collector_errors_total{collector=\"good\"} 0.0\n")
                .containsPattern("rdma_agent_metrics_collector_duration_seconds\\{collector=\"good\"} [0-9.E-]+\n");
    }

    @Test
    void statusListsTheBoundCollectorsWithTheirFigures() throws IOException {
        whiteboard.add("deviceplugin-shared", allocations(1));
        scrape();
        assertThat(whiteboard.status()).singleElement().asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("name", "deviceplugin-shared").containsEntry("errors", 0L)
                .containsKey("lastCollectSeconds");
    }

    @Test
    void aCollectorClashingAtScrapeTimeLosesItsSeriesAndTheRestIsServed() throws IOException {
        whiteboard.add("first", allocations(5));
        whiteboard.add("second", allocations(7));           // declares no names, so registration cannot tell
        whiteboard.add("other", () -> new MetricSnapshots(io.prometheus.metrics.model.snapshots.GaugeSnapshot.builder()
                .name("rdma_agent_other").help("other").dataPoint(
                        io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot.builder().value(1).build())
                .build()));
        String text = new String(ScrapeHandler.render(PrometheusTextFormatWriter.create(), whiteboard, false),
                StandardCharsets.UTF_8);
        assertThat(text).containsOnlyOnce("rdma_agent_deviceplugin_allocations_total{")
                .contains("rdma_agent_deviceplugin_allocations_total{resource=\"rdma/hca_a\",result=\"ok\"} 5.0\n",
                        "rdma_agent_other 1.0\n");
        assertThat(new String(ScrapeHandler.render(PrometheusTextFormatWriter.create(), whiteboard, false),
                StandardCharsets.UTF_8)).contains("rdma_agent_metrics_collector_errors_total{collector=\"second\"} 1.0\n");
    }

    @Test
    void aCollectorDeclaringTakenNamesIsRefused() {
        Counter first = Counter.builder().name("rdma_agent_cni_operations").help("CNI operations").build();
        Counter second = Counter.builder().name("rdma_agent_cni_operations").help("CNI operations").build();
        assertThat(whiteboard.add("cni", new Named(first))).isTrue();
        assertThat(whiteboard.add("cni-copy", new Named(second))).isFalse();
        assertThat(whiteboard.size()).isEqualTo(1);
    }

    /** A collector that declares its names up front, as client_java's own metrics do. */
    private record Named(Counter counter) implements MultiCollector {
        @Override
        public MetricSnapshots collect() {
            return new MetricSnapshots(counter.collect());
        }

        @Override
        public java.util.List<MetricFamilyDescriptor> getMetricFamilyDescriptors() {
            return java.util.List.of(counter.getMetricFamilyDescriptor());
        }
    }
}
