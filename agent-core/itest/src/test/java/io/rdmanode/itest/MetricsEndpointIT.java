// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * {@code /metrics} inside a real Felix with the shipped bundles on the recorded ConnectX-5 host: RDMA port
 * counters and agent figures are served, and stopping a bundle takes its metrics with it (hot swap).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class MetricsEndpointIT extends AgentTestSupport {

    private static final String PORT_STATE = "rdma_agent_infiniband_state_id{device=\"mlx5_0\",port=\"1\"} 4.0";

    @Inject
    BundleContext context;

    @Configuration
    public Option[] config() {
        return agentOptions("agent.http.port = 0\nprobe.greeting = hello\nmetrics.deviceExclude = \"mlx5_1[0-7]\"\n"
                + recordedHostDiscovery());
    }

    @Test
    public void servesPortCountersAndAgentFiguresAndDropsThoseOfAStoppedBundle() throws Exception {
        String url = metricsUrl();
        await("RDMA port series on " + url, Duration.ofSeconds(10), () -> scrape(url, null),
                () -> scrape(url, null).contains(PORT_STATE));
        String text = scrape(url, null);
        assertTrue(text, text.contains("rdma_agent_bundle_active{bundle=\"metrics\"} 1.0"));
        // applied counts the first revision and its re-application when bundles come up
        assertTrue(text, text.contains("rdma_agent_config_reloads_total{result=\"applied\"} ")
                && text.contains("rdma_agent_config_reloads_total{result=\"rejected\"} 0.0"));
        assertTrue(text, text.contains("rdma_agent_discovery_devices 18.0"));
        assertTrue("deviceExclude from agent.conf applies", !text.contains("device=\"mlx5_10\""));
        String om = scrape(url, "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5");
        assertTrue(om, om.contains("# UNIT rdma_agent_infiniband_port_data_received_bytes bytes") && om.endsWith("# EOF\n"));

        Bundle discovery = installedBundle(context, "io.rdmanode.discovery");
        discovery.stop();
        await("RDMA series gone after stopping discovery", Duration.ofSeconds(5), () -> scrape(url, null),
                () -> !scrape(url, null).contains("rdma_agent_infiniband_"));
        assertTrue(scrape(url, null).contains("rdma_agent_bundle_active{bundle=\"discovery\"} 0.0"));
        discovery.start();
        await("RDMA series back after starting discovery", Duration.ofSeconds(10), () -> scrape(url, null),
                () -> scrape(url, null).contains(PORT_STATE));

        Bundle metrics = installedBundle(context, "io.rdmanode.metrics");
        metrics.stop();
        await("/metrics gone with the metrics bundle", Duration.ofSeconds(5), () -> httpStatus(url),
                () -> httpStatus(url) == 404);
        metrics.start();
        await("/metrics back", Duration.ofSeconds(10), () -> httpStatus(url), () -> httpStatus(url) == 200);
        assertTrue(scrape(url, null).contains(PORT_STATE));
    }

    private String metricsUrl() throws Exception {
        return metricsUrl(context);
    }

}
