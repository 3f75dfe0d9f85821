// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import io.rdmanode.cni.PodAttachment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code rdma_agent_cni_*}, read at scrape time: requests by command and result, time spent per command,
 * reconciliation repairs, the installed client, one series per RDMA device in a pod with the pod's identity, and
 * the socket's bounds at work: connections open, refused and timed out, requests refused by size.
 */
@Component(service = MultiCollector.class, configurationPid = CniComponent.PID,
           configurationPolicy = ConfigurationPolicy.REQUIRE)     // like the CNI: none waits unconfigured in /readyz
public final class CniCollector implements MultiCollector {

    private final CniStats stats;
    private final Supplier<List<PodAttachment>> attachments;
    private final Supplier<String> installedVersion;

    /** A plain component; without lib-prometheus (an optional import) SCR cannot load it and the CNI serves on. */
    @Activate
    public CniCollector(@Reference CniFigures cni) {
        this(cni.stats(), cni::attachments, cni::installedVersion);
    }

    CniCollector(CniStats stats, Supplier<List<PodAttachment>> attachments, Supplier<String> installedVersion) {
        this.stats = stats;
        this.attachments = attachments;
        this.installedVersion = installedVersion;
    }

    @Override
    public MetricSnapshots collect() {
        List<CounterDataPointSnapshot> requests = new ArrayList<>();
        stats.requests.forEach((k, v) -> {
            String[] cr = k.split("\\|");
            requests.add(new CounterDataPointSnapshot(v.sum(), Labels.of("command", cr[0], "result", cr[1]), null, 0L));
        });
        List<CounterDataPointSnapshot> seconds = new ArrayList<>();
        stats.nanos.forEach((c, v) -> seconds.add(new CounterDataPointSnapshot(v.sum() / 1e9, Labels.of("command", c),
                null, 0L)));
        List<CounterDataPointSnapshot> reconciled = new ArrayList<>();
        stats.reconciled.forEach((a, v) -> reconciled.add(new CounterDataPointSnapshot(v.sum(),
                Labels.of("action", a), null, 0L)));
        List<GaugeDataPointSnapshot> pods = new ArrayList<>();
        for (PodAttachment a : attachments.get()) {
            pods.add(new GaugeDataPointSnapshot(1, Labels.of("device", a.rdmaDevice(), "pci_address", a.pciAddress(),
                    "pod_namespace", a.podNamespace(), "pod_name", a.podName()), null));
        }
        List<GaugeDataPointSnapshot> installed = List.of(new GaugeDataPointSnapshot(1,
                Labels.of("version", installedVersion.get()), null));
        List<CounterDataPointSnapshot> refusedConnections = new ArrayList<>();
        for (String reason : List.of("connection_limit", "buffer_limit")) {
            LongAdder n = stats.connectionsRefused.get(reason);
            refusedConnections.add(new CounterDataPointSnapshot(n == null ? 0 : n.sum(), Labels.of("reason", reason),
                    null, 0L));
        }
        List<CounterDataPointSnapshot> refusedRequests = new ArrayList<>();
        for (String reason : List.of("size", "malformed")) {
            LongAdder n = stats.requestsRefused.get(reason);
            refusedRequests.add(new CounterDataPointSnapshot(n == null ? 0 : n.sum(), Labels.of("reason", reason),
                    null, 0L));
        }
        return new MetricSnapshots(
                new CounterSnapshot(new MetricMetadata("rdma_agent_cni_requests",
                        "CNI invocations answered, by command and result (ok, error)"), requests),
                new CounterSnapshot(new MetricMetadata("rdma_agent_cni_request_seconds",
                        "Time the agent spent answering CNI invocations, by command", Unit.SECONDS), seconds),
                new CounterSnapshot(new MetricMetadata("rdma_agent_cni_reconciled",
                        "Attachments repaired by start-up reconciliation or GC, by action"), reconciled),
                new GaugeSnapshot(new MetricMetadata("rdma_agent_cni_pod_rdma_device",
                        "1 per RDMA device the CNI plugin has moved into a pod"), pods),
                new GaugeSnapshot(new MetricMetadata("rdma_agent_cni_client_info",
                        "The rdma CNI executable installed in the CNI bin dir (version, or none)"), installed),
                new GaugeSnapshot(new MetricMetadata("rdma_agent_cni_connections_open",
                        "Connections to the CNI socket open now"), List.of(new GaugeDataPointSnapshot(
                                stats.connectionsOpen.get(), Labels.EMPTY, null))),
                new CounterSnapshot(new MetricMetadata("rdma_agent_cni_connections_refused",
                        "Connections to the CNI socket the agent closed unanswered (error 11 where it could), by"
                                + " reason: cni.maxConnections reached (the oldest still sending went), or the"
                                + " budget of buffered request bytes"), refusedConnections),
                new CounterSnapshot(new MetricMetadata("rdma_agent_cni_connections_timed_out",
                        "Connections to the CNI socket closed for not sending their whole request (or not reading"
                                + " their answer) within cni.requestTimeout"), List.of(new CounterDataPointSnapshot(
                                        stats.connectionsTimedOut.sum(), Labels.EMPTY, null, 0L))),
                new CounterSnapshot(new MetricMetadata("rdma_agent_cni_requests_refused",
                        "CNI requests refused before any command ran, by reason: size (over cni.maxRequestBytes,"
                                + " error 6), malformed (not the rdma executable's wire format, error 6)"),
                        refusedRequests));
    }
}
