// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.rdmanode.freeflow.internal.router.ControlServer;
import io.rdmanode.freeflow.internal.router.Limits;
import io.rdmanode.freeflow.internal.router.PollerSettings;
import io.rdmanode.freeflow.internal.router.Router;
import io.rdmanode.freeflow.internal.router.RouterSettings;
import io.rdmanode.freeflow.testclient.FfClient;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Metrics and the /status section of a router that served a client. */
class FreeflowCollectorTest {

    @Test
    @SuppressWarnings("unchecked")
    void metrics_and_status_show_the_tenant_and_the_poller(@TempDir Path tmp) throws Exception {
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "ffc");
        Limits d = Limits.defaults();
        Limits onePd = new Limits(d.maxMrBytes(), d.maxMrs(), d.maxQps(), d.maxCqs(), 1, d.maxMailboxes(), d.maxQpWr(),
                d.maxCqe(), d.maxSge());
        Router router = new Router(new RouterSettings(tmp, "c", onePd, PollerSettings.defaults()));
        ControlServer server = new ControlServer(dir.resolve("r"), router, 4, 100);
        try {
            FfClient c = new FfClient(server.socket(), tmp, 3);
            int pd = c.allocPd();
            c.regMr(pd, 8192, 1);
            c.createCq(8);
            assertThat(c.allocPd()).as("past a PD cap of 1").isZero();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            new PrometheusTextFormatWriter(false).write(out, new FreeflowCollector(new FreeflowFigures() {
                @Override
                public Router router() {
                    return router;
                }

                @Override
                public ControlServer server() {
                    return server;
                }
            }).collect());
            String text = out.toString(StandardCharsets.UTF_8);
            assertThat(text).contains("rdma_agent_freeflow_control_requests_total{result=\"ok\"} 3.0")
                    .contains("rdma_agent_freeflow_tenant_mr_bytes{pid=\"" + ProcessHandle.current().pid() + "\",uid=\"0\"} 8192.0")
                    .contains("rdma_agent_freeflow_poller_cpu_seconds_total")
                    .contains("rdma_agent_freeflow_shm_files 2.0")
                    .contains("rdma_agent_freeflow_tenant_refusals_total{pid=\"" + ProcessHandle.current().pid()
                            + "\",resource=\"pds\",uid=\"0\"} 1.0")
                    .contains("rdma_agent_freeflow_tenant_shm_bytes{pid=\"" + ProcessHandle.current().pid()
                            + "\",uid=\"0\"} " + (8192.0 + 2097156.0))
                    .contains("rdma_agent_freeflow_idle_cuts_total 0.0")
                    .as("rdma_cm's series from the start, zeros with the software transport")
                    .contains("rdma_agent_freeflow_tenant_cm_channels{pid=\"" + ProcessHandle.current().pid()
                            + "\",uid=\"0\"} 0.0")
                    .contains("rdma_agent_freeflow_tenant_cm_ids{pid=\"" + ProcessHandle.current().pid()
                            + "\",uid=\"0\"} 0.0")
                    .contains("rdma_agent_freeflow_tenant_cm_queued_events{pid=\"" + ProcessHandle.current().pid()
                            + "\",uid=\"0\"} 0.0")
                    .contains("rdma_agent_freeflow_tenant_cm_operations_total{operation=\"reject\",pid=\""
                            + ProcessHandle.current().pid() + "\",uid=\"0\"} 0.0")
                    .contains("rdma_agent_freeflow_cm_connects_total 0.0", "rdma_agent_freeflow_cm_accepts_total 0.0",
                            "rdma_agent_freeflow_cm_rejects_total 0.0", "rdma_agent_freeflow_cm_channels 0.0",
                            "rdma_agent_freeflow_cm_errors_total{kind=\"request\"} 0.0",
                            "rdma_agent_freeflow_cm_errors_total{kind=\"event\"} 0.0");
            @SuppressWarnings("unchecked")
            Map<String, Object> status = FreeflowStatus.of("/x/r", tmp.toString(), router, server);
            assertThat(status).containsEntry("shmFiles", 2L);
            assertThat((List<?>) status.get("tenants")).singleElement().satisfies(t -> assertThat((Map<String, Object>) t)
                    .containsEntry("shmBytes", 8192L + 2097156L)
                    .containsEntry("refusals", Map.of("connections", 0L, "channels", 0L, "pds", 1L, "cqs", 0L, "qps", 0L,
                            "srqs", 0L, "mrs", 0L, "shm", 0L)));
            assertThat((Map<String, Object>) status.get("control")).containsEntry("maxConnectionsPerTenant", 128);
            assertThat((Map<String, Object>) status.get("rdmaCm")).containsEntry("served", false)
                    .containsEntry("channels", 0).containsEntry("connects", 0L).containsEntry("requestErrors", 0L);
            assertThat((List<?>) status.get("tenants")).singleElement().satisfies(t -> assertThat(
                    (Map<String, Object>) ((Map<String, Object>) t).get("cm")).containsEntry("channels", 0)
                    .containsEntry("ids", 0).containsEntry("queuedEvents", 0).containsEntry("accepts", 0L)
                    .containsEntry("errors", 0L));
        } finally {
            server.close();
            router.close();
            Files.deleteIfExists(dir);
        }
    }
}
