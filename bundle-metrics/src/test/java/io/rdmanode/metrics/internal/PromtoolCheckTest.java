// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.metrics.internal.infiniband.InfinibandPortCollector;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code promtool check metrics} (Prometheus' own linter) finds no problem in what the endpoint serves. */
class PromtoolCheckTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"cx5-roce-sriov", "cx6-ib", "rxe", "ndr-ib"})
    void promtoolFindsNoProblem(String host) throws Exception {
        Path promtool = ExternalTool.require("promtool", "prometheus");
        RecordedHost recorded = RecordedHost.unpack(host, dir);
        HostSnapshot s = recorded.scan();
        PrometheusRegistry registry = new PrometheusRegistry();
        CollectorWhiteboard whiteboard = new CollectorWhiteboard(registry);
        whiteboard.add("infiniband", new InfinibandPortCollector(() -> s, recorded.counters(), "", "", true));
        whiteboard.add("agent", new AgentCollector(new FixedFigures(
                List.of(new AgentFigures.BundleFigure("metrics", "io.rdmanode.metrics", "0.1.0", "active")))));
        byte[] body = ScrapeHandler.render(PrometheusTextFormatWriter.create(), registry.scrape(), false);
        assertThat(check(promtool, body, dir.resolve("metrics.prom"))).as("promtool check metrics on %s", host)
                .isEmpty();
    }

    /**
     * promtool's findings, empty when it has none. It reads the Prometheus text format only (Prometheus 2.42):
     * OpenMetrics is checked by the real Prometheus scraping it ({@link PrometheusServerTest}).
     */
    static String check(Path promtool, byte[] metrics, Path file) throws IOException, InterruptedException {
        Files.write(file, metrics);
        Process p = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectErrorStream(true)
                .redirectInput(file.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return p.exitValue() == 0 ? "" : "exit " + p.exitValue() + ": " + out;
    }
}
