// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmanode.metrics.internal.AgentFigures.BundleFigure;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard shipped in dist ({@code grafana/rdma-node-agent.json}) asks only for series the agent
 * serves, and every query is valid PromQL (checked by {@code promtool check rules}).
 */
class GrafanaDashboardTest {

    static final Path DASHBOARD = Path.of("../dist/src/main/dist/grafana/rdma-node-agent.json");
    private static final Pattern SERIES = Pattern.compile("(?:rdma_agent|process|jvm)_[a-z0-9_]+");
    /** Series other bundles serve through their own collectors (discovery: its DiscoveryCollectorTest). */
    private static final Set<String> OTHER_BUNDLES = Set.of("rdma_agent_discovery_revision",
            "rdma_agent_discovery_devices", "rdma_agent_discovery_problems", "rdma_agent_discovery_scans_total",
            "rdma_agent_discovery_kernel_events_total", "rdma_agent_discovery_verbs_events_total");

    /**
     * Families other bundles contribute as their own collectors (issue 9 item 5): agent-core/config's
     * ConfigCollector and agent-core/discovery's DiscoveryCollector; dist's PrometheusScrapeIT sees them served.
     */
    private static final Set<String> FROM_OTHER_BUNDLES = Set.of("rdma_agent_config_reloads_total",
            "rdma_agent_discovery_revision", "rdma_agent_discovery_devices", "rdma_agent_discovery_problems");

    @TempDir
    Path dir;

    static List<String> queries() throws IOException {
        JsonObject dash = JsonParser.parseString(Files.readString(DASHBOARD)).getAsJsonObject();
        List<String> out = new ArrayList<>();
        for (JsonElement panel : dash.getAsJsonArray("panels")) {
            JsonObject p = panel.getAsJsonObject();
            if (p.has("targets")) {
                p.getAsJsonArray("targets").forEach(t -> out.add(t.getAsJsonObject().get("expr").getAsString()));
            }
        }
        return out;
    }

    @Test
    void everySeriesTheDashboardQueriesIsServed() throws IOException {
        Set<String> served = new TreeSet<>();
        for (String host : RecordedHost.ALL) {
            try (InputStream in = getClass().getResourceAsStream("/fixtures/sysfs/expected-" + host + ".prom")) {
                names(new String(in.readAllBytes(), StandardCharsets.UTF_8), served);
            }
        }
        PrometheusRegistry registry = new PrometheusRegistry();
        CollectorWhiteboard whiteboard = new CollectorWhiteboard(registry);
        whiteboard.add("agent", new AgentCollector(new FixedFigures(
                List.of(new BundleFigure("metrics", "io.rdmanode.metrics", "0.1.0", "active")))));
        whiteboard.add("process", new ProcessCollector(Path.of("/proc/self/status")));
        whiteboard.add("broken", () -> {
            throw new IllegalStateException("to have an error series");
        });
        registry.scrape();
        names(new String(ScrapeHandler.render(PrometheusTextFormatWriter.create(), registry.scrape(), false),
                StandardCharsets.UTF_8), served);

        served.addAll(FROM_OTHER_BUNDLES);
        Set<String> queried = new TreeSet<>();
        queries().forEach(q -> names(q, queried));
        assertThat(queried).isNotEmpty();
        served.addAll(OTHER_BUNDLES);
        assertThat(served).containsAll(queried);
    }

    @Test
    void everyQueryIsValidPromql() throws Exception {
        Path promtool = ExternalTool.require("promtool", "prometheus");
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        int i = 0;
        for (String q : queries()) {
            String expr = q.replace("$__rate_interval", "5m").replace("\\", "\\\\").replace("\"", "\\\"");
            rules.append("      - record: dashboard:query").append(i++).append("\n        expr: \"").append(expr)
                    .append("\"\n");
        }
        Path file = dir.resolve("dashboard-rules.yml");
        Files.writeString(file, rules);
        Process p = new ProcessBuilder(promtool.toString(), "check", "rules", file.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains("SUCCESS: " + i + " rules found");
    }

    private static void names(String text, Set<String> into) {
        Matcher m = SERIES.matcher(text);
        while (m.find()) {
            into.add(m.group());
        }
    }
}
