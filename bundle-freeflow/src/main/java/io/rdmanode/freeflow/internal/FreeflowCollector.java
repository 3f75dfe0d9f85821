// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import io.rdmanode.freeflow.internal.rdmacm.CmCounts;
import io.rdmanode.freeflow.internal.router.ControlServer;
import io.rdmanode.freeflow.internal.router.Router;
import io.rdmanode.freeflow.internal.router.RouterStats;
import io.rdmanode.freeflow.internal.router.TenantFigures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;

/** {@code rdma_agent_freeflow_*}, read from the router's counters at scrape time. */
@Component(service = MultiCollector.class, configurationPid = FreeflowComponent.PID,
           configurationPolicy = ConfigurationPolicy.REQUIRE)     // like the router: none waits unconfigured
public final class FreeflowCollector implements MultiCollector {
    private final FreeflowFigures figures;

    /** A plain component; without lib-prometheus (an optional import) SCR cannot load it and the router serves on. */
    @Activate
    public FreeflowCollector(@Reference FreeflowFigures figures) {
        this.figures = figures;
    }

    @Override
    public MetricSnapshots collect() {
        Router router = figures.router();
        ControlServer server = figures.server();
        if (router == null || server == null) {
            return MetricSnapshots.of();        // no router yet: it waits for its device (freeflow.deviceSelectors)
        }
        RouterStats s = router.stats();
        List<MetricSnapshot> out = new ArrayList<>();
        out.add(counter("rdma_agent_freeflow_control_requests", "Control-socket requests answered, by result",
                point(s.controlRequests() - s.controlErrors(), "result", "ok"), point(s.controlErrors(), "result", "error")));
        out.add(counter("rdma_agent_freeflow_control_connections", "Control-socket connections accepted",
                point(s.connections())));
        out.add(counter("rdma_agent_freeflow_mailbox_requests", "Fast-path mailbox requests answered, by result",
                point(s.fastRequests() - s.fastErrors(), "result", "ok"), point(s.fastErrors(), "result", "error")));
        out.add(counter("rdma_agent_freeflow_data_bytes", "Bytes moved by the software backend, by operation",
                point(s.sendBytes(), "op", "send"), point(s.writeBytes(), "op", "write"), point(s.readBytes(), "op", "read")));
        out.add(counter("rdma_agent_freeflow_completions", "Work completions generated, by status",
                point(s.completions() - s.errorCompletions(), "status", "success"),
                point(s.errorCompletions(), "status", "error")));
        out.add(counter("rdma_agent_freeflow_rnr_naks", "Receiver-not-ready NAKs (send with no receive posted)",
                point(s.rnrNaks())));
        out.add(counter("rdma_agent_freeflow_uc_dropped", "UC messages dropped (no receive posted, no connected"
                + " peer, or a bad remote key): UC has no acknowledgements, the sender completes successfully",
                point(s.ucDropped())));
        out.add(counter("rdma_agent_freeflow_cq_overflows", "Completions dropped on a full CQ", point(s.cqOverflows())));
        out.add(counter("rdma_agent_freeflow_limit_refusals", "Requests refused by a per-tenant limit",
                point(s.limitRefusals())));
        out.add(counter("rdma_agent_freeflow_async_events", "Async events queued for tenants (a port event once per"
                + " tenant), and those dropped because the tenant had 256 it had not taken",
                point(s.asyncEvents(), "result", "queued"), point(s.asyncEventsDropped(), "result", "dropped")));
        out.add(counter("rdma_agent_freeflow_reclaimed_tenants", "Client processes whose resources were reclaimed",
                point(s.tenantsReclaimed())));
        out.add(counter("rdma_agent_freeflow_shm_faults", "Faults in a client's shared memory the router caught (a"
                + " file the client truncated under the router's mapping; that client is reclaimed)",
                point(s.shmFaults())));
        out.add(counter("rdma_agent_freeflow_reclaimed_objects", "QPs, SRQs, CQs, MRs, channels and PDs reclaimed",
                point(s.objectsReclaimed())));
        double cpu = router.poller().cpuSeconds();
        if (cpu >= 0) {
            out.add(new CounterSnapshot(new MetricMetadata("rdma_agent_freeflow_poller_cpu_seconds",
                    "CPU time used by the mailbox poller thread", Unit.SECONDS), List.of(point(cpu))));
        }
        out.add(counter("rdma_agent_freeflow_poller_scans", "Mailbox scans, by outcome",
                point(router.poller().busyScans(), "outcome", "busy"),
                point(router.poller().scans() - router.poller().busyScans(), "outcome", "empty")));
        out.add(counter("rdma_agent_freeflow_poller_backoffs", "Idle back-off steps of the poller, by kind",
                point(router.poller().yields(), "kind", "yield"), point(router.poller().parks(), "kind", "park")));
        List<GaugeDataPointSnapshot> qps = new ArrayList<>();
        List<GaugeDataPointSnapshot> srqs = new ArrayList<>();
        List<GaugeDataPointSnapshot> mrs = new ArrayList<>();
        List<GaugeDataPointSnapshot> bytes = new ArrayList<>();
        List<GaugeDataPointSnapshot> cqs = new ArrayList<>();
        List<GaugeDataPointSnapshot> channels = new ArrayList<>();
        List<GaugeDataPointSnapshot> shm = new ArrayList<>();
        List<GaugeDataPointSnapshot> conns = new ArrayList<>();
        List<CounterDataPointSnapshot> refused = new ArrayList<>();
        List<GaugeDataPointSnapshot> cmChannels = new ArrayList<>();
        List<GaugeDataPointSnapshot> cmIds = new ArrayList<>();
        List<GaugeDataPointSnapshot> cmQueued = new ArrayList<>();
        List<CounterDataPointSnapshot> cmOps = new ArrayList<>();
        Map<Integer, Integer> connections = server.connectionsByPid();
        for (TenantFigures t : router.tenants()) {
            Labels l = Labels.of("pid", Integer.toString(t.pid()), "uid", Integer.toString(t.uid()));
            cqs.add(new GaugeDataPointSnapshot(t.cqs(), l, null));
            channels.add(new GaugeDataPointSnapshot(t.channels(), l, null));
            shm.add(new GaugeDataPointSnapshot(t.shmBytes(), l, null));
            conns.add(new GaugeDataPointSnapshot(connections.getOrDefault(t.pid(), 0), l, null));
            t.refusals().forEach((r, n) -> refused.add(point(n, "pid", Integer.toString(t.pid()), "uid",
                    Integer.toString(t.uid()), "resource", r.label())));
            qps.add(new GaugeDataPointSnapshot(t.qps(), l, null));
            srqs.add(new GaugeDataPointSnapshot(t.srqs(), l, null));
            mrs.add(new GaugeDataPointSnapshot(t.mrs(), l, null));
            bytes.add(new GaugeDataPointSnapshot(t.mrBytes(), l, null));
            cmChannels.add(new GaugeDataPointSnapshot(t.cm().channels(), l, null));
            cmIds.add(new GaugeDataPointSnapshot(t.cm().ids(), l, null));
            cmQueued.add(new GaugeDataPointSnapshot(t.cm().queuedEvents(), l, null));
            String pid = Integer.toString(t.pid());
            String uid = Integer.toString(t.uid());
            cmOps.add(point(t.cm().connects(), "pid", pid, "uid", uid, "operation", "connect"));
            cmOps.add(point(t.cm().accepts(), "pid", pid, "uid", uid, "operation", "accept"));
            cmOps.add(point(t.cm().rejects(), "pid", pid, "uid", uid, "operation", "reject"));
            cmOps.add(point(t.cm().errors(), "pid", pid, "uid", uid, "operation", "error"));
        }
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_qps", "QPs per client process"), qps));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_srqs", "SRQs per client process"), srqs));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_mrs", "MRs per client process"), mrs));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_mr_bytes",
                "Registered bytes per client process", Unit.BYTES), bytes));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_cqs", "CQs per client process"), cqs));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_channels",
                "Completion channels per client process"), channels));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_shm_bytes",
                "Shared memory (MR files and mailboxes) per client process", Unit.BYTES), shm));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_connections",
                "Control connections open per client process"), conns));
        out.add(new CounterSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_refusals",
                "Requests refused by a per-tenant cap, by client process and resource"), refused));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_cm_channels",
                "rdma_cm event channels per client process"), cmChannels));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_cm_ids",
                "rdma_cm ids per client process (its own and those of the connection requests it got)"), cmIds));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_cm_queued_events",
                "rdma_cm events fetched from the kernel that the client process has not taken yet"), cmQueued));
        out.add(new CounterSnapshot(new MetricMetadata("rdma_agent_freeflow_tenant_cm_operations",
                "rdma_cm per client process: CONNECTs and ACCEPTs the kernel took, connection attempts rejected,"
                        + " errors (requests refused, error events)"), cmOps));
        cm(out, router.cmTotals());
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_cm_channels",
                "rdma_cm event channels open now (each a /dev/infiniband/rdma_cm file)"),
                List.of(new GaugeDataPointSnapshot(router.cmChannels(), Labels.EMPTY, null))));
        out.add(counter("rdma_agent_freeflow_idle_cuts", "Control connections closed for sending nothing within"
                + " the idle timeout", point(server.idleCuts())));
        out.add(counter("rdma_agent_freeflow_body_budget_cuts", "Control connections closed because request bodies"
                + " still arriving held more than the router's budget (the connection holding the most is closed)",
                point(server.budgetCuts())));
        out.add(counter("rdma_agent_freeflow_accept_pauses", "Times the control socket stopped accepting at its"
                + " total connection cap", point(server.acceptPauses())));
        out.add(counter("rdma_agent_freeflow_parked_cq_events", "GET_CQ_EVENT requests that waited for their event"
                + " without a thread", point(server.parkedEvents())));
        out.add(counter("rdma_agent_freeflow_handover_forwarded", "Control connections of a draining predecessor's"
                + " tenants passed back to it (successor)", point(server.forwardedToPredecessor())));
        out.add(counter("rdma_agent_freeflow_handover_taken_back", "Control connections of this draining router's"
                + " tenants its successor passed back (predecessor)", point(server.takenBackFromSuccessor())));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_tenants", "Client processes known"),
                List.of(new GaugeDataPointSnapshot(router.tenants().size(), Labels.EMPTY, null))));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_shm_files", "Shared-memory files of the router"),
                List.of(new GaugeDataPointSnapshot(router.shmFiles(), Labels.EMPTY, null))));
        out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_open_connections",
                "Control connections open now"), List.of(new GaugeDataPointSnapshot(server.openConnections(), Labels.EMPTY, null))));
        router.mapping().ifPresent(m -> {
            io.rdmanode.freeflow.internal.mapping.MrMappingService.Figures f = m.figures();
            out.add(counter("rdma_agent_freeflow_mr_mappings_received", "MR mappings received from listed hosts'"
                    + " routers (UDP), and datagrams ignored, by outcome", point(f.received(), "outcome", "stored"),
                    point(f.unknownSenders(), "outcome", "unknown_sender"), point(f.malformed(), "outcome", "malformed")));
            out.add(counter("rdma_agent_freeflow_mr_mappings_announced", "MR mappings this router sent, by outcome",
                    point(f.announced() - f.unacknowledged(), "outcome", "acknowledged"),
                    point(f.unacknowledged(), "outcome", "unacknowledged")));
            out.add(counter("rdma_agent_freeflow_mr_mapping_resends", "MR mapping attempts sent again for want of an"
                    + " acknowledgement", point(f.resent())));
            out.add(counter("rdma_agent_freeflow_mr_mapping_ambiguous", "WRITE/READ remote addresses left as the"
                    + " client gave them: several hosts announced the rkey and the QP's peer address is none of them",
                    point(f.ambiguous())));
            out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_freeflow_remote_mrs",
                    "MRs of other hosts' routers known for address translation"),
                    List.of(new GaugeDataPointSnapshot(f.mappings(), Labels.EMPTY, null))));
        });
        return new MetricSnapshots(out);
    }

    /** The router's rdma_cm counts, zeros from the start (and for ever with the software transport). */
    private static void cm(List<MetricSnapshot> out, CmCounts.Totals cm) {
        out.add(counter("rdma_agent_freeflow_cm_connects", "rdma_cm CONNECTs the kernel took", point(cm.connects())));
        out.add(counter("rdma_agent_freeflow_cm_accepts", "rdma_cm ACCEPTs the kernel took", point(cm.accepts())));
        out.add(counter("rdma_agent_freeflow_cm_rejects", "rdma_cm connection attempts rejected (REJECTED events)",
                point(cm.rejects())));
        out.add(counter("rdma_agent_freeflow_cm_errors", "rdma_cm errors: requests refused by the router or the"
                + " kernel, and error events (address, route, connect, unreachable)",
                point(cm.requestErrors(), "kind", "request"), point(cm.errorEvents(), "kind", "event")));
    }

    private static CounterSnapshot counter(String name, String help, CounterDataPointSnapshot... points) {
        return new CounterSnapshot(new MetricMetadata(name, help), List.of(points));
    }

    private static CounterDataPointSnapshot point(double v, String... labels) {
        return new CounterDataPointSnapshot(v, labels.length == 0 ? Labels.EMPTY : Labels.of(labels), null, 0L);
    }
}
