// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.rdmanode.health.HttpEndpoint;
import java.time.Duration;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

/**
 * An edit of the {@code metrics} section applies in place: a device filter changes the next scrape and a new
 * path moves the endpoint, both with the same endpoint service (its registry and collectors are not rebuilt).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class MetricsTuningIT extends InPlaceEditSupport {

    private static final String ENDPOINT = "(component.name=io.rdmanode.metrics.internal.MetricsEndpoint)";

    @Override
    String base() {
        return "agent.http.port = 0\n";
    }

    @Test
    public void aFilterOrPathEditKeepsTheEndpointService() throws Exception {
        String url = metricsUrl(context);
        await("mlx5_10 series", Duration.ofSeconds(10), () -> scrape(url, null),
                () -> scrape(url, null).contains("device=\"mlx5_10\""));
        long endpoint = serviceId(HttpEndpoint.class, ENDPOINT);

        edit("metrics.deviceExclude = \"mlx5_1[0-7]\"\n" + recordedHostSection());
        await("mlx5_10 excluded", Duration.ofSeconds(10), () -> scrape(url, null),
                () -> !scrape(url, null).contains("device=\"mlx5_10\""));
        assertEquals("the same endpoint service after a filter edit", endpoint, serviceId(HttpEndpoint.class, ENDPOINT));

        String moved = url.replace("/metrics", "/m2");
        edit("metrics { deviceExclude = \"mlx5_1[0-7]\", path = \"/m2\" }\n" + recordedHostSection());
        await(moved + " served", Duration.ofSeconds(10), () -> httpStatus(moved), () -> httpStatus(moved) == 200);
        await(url + " gone", Duration.ofSeconds(5), () -> httpStatus(url), () -> httpStatus(url) == 404);
        assertEquals("the same endpoint service after a path edit", endpoint, serviceId(HttpEndpoint.class, ENDPOINT));
        assertTrue(scrape(moved, null).contains("rdma_agent_infiniband_"));
    }
}
