// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.cni.PodAttachment;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.netlink.NetworkNamespaces;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The port series of RDMA devices the CNI plugin moved into pods, with {@code pod_namespace} and
 * {@code pod_name} beside {@code device} and {@code port}. In exclusive netns mode a moved device is gone from
 * the host's sysfs, so each one is read on a thread inside its pod's network namespace with that namespace's own
 * sysfs ({@link NetworkNamespaces#callInWithSysfs}), and the plan is made and read there (discovery reads the pod's tree:
 * {@code RdmaDiscovery.counters(sys)}): its values mean something only on that thread. One short-lived thread per pod device per scrape; a pod that cannot be read
 * (its namespace went between DEL and the next scrape, a runtime that forbids mount namespaces) is left out
 * and counted, and the host's series are unaffected.
 */
final class PodPortSeries {

    private static final Logger LOG = LoggerFactory.getLogger(PodPortSeries.class);

    private final Supplier<List<PodAttachment>> attachments;
    private final NetworkNamespaces namespaces;
    private final RdmaDiscovery discovery;
    private final Path sysInPod;
    private final Predicate<String> devices;
    private final boolean hwCounters;
    private final AtomicLong errors = new AtomicLong();
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** @param sysInPod where a thread inside the pod's namespace sees its sysfs: {@code /sys} */
    PodPortSeries(Supplier<List<PodAttachment>> attachments, NetworkNamespaces namespaces, RdmaDiscovery discovery,
                  Path sysInPod, Predicate<String> devices, boolean hwCounters) {
        this.attachments = attachments;
        this.namespaces = namespaces;
        this.discovery = discovery;
        this.sysInPod = sysInPod;
        this.devices = devices;
        this.hwCounters = hwCounters;
    }

    Predicate<String> devices() {
        return devices;
    }

    boolean hwCounters() {
        return hwCounters;
    }

    /** The series of every attached device that could be read now, plus this reader's own two families. */
    List<MetricSnapshots> read() {
        List<MetricSnapshots> out = new ArrayList<>();
        int read = 0;
        for (PodAttachment a : attachments.get()) {
            if (!devices.test(a.rdmaDevice())) {
                continue;
            }
            Optional<MetricSnapshots> series = readOne(a);
            if (series.isPresent()) {
                out.add(series.get());
                read++;
            }
        }
        out.add(own(read));
        return out;
    }

    private Optional<MetricSnapshots> readOne(PodAttachment a) {
        String key = a.containerId() + "/" + a.ifname();
        try {
            Optional<MetricSnapshots> s = namespaces.callInWithSysfs(Path.of(a.netns()), () -> {
                Optional<RdmaDevice> device = discovery.readDevice(sysInPod, a.rdmaDevice());
                return device.map(d -> plan(d, a).read());
            });
            if (s.isEmpty()) {
                // Shared netns mode or a device the kernel already returned: nothing of it is in the pod.
                LOG.debug("pod {}/{}: {} not in its namespace's sysfs", a.podNamespace(), a.podName(),
                        a.rdmaDevice());
            } else if (warned.remove(key)) {
                LOG.info("pod {}/{}: RDMA series of {} readable again", a.podNamespace(), a.podName(),
                        a.rdmaDevice());
            }
            return s;
        } catch (Exception | LinkageError e) {
            errors.incrementAndGet();
            if (warned.add(key)) {
                LOG.warn("pod {}/{}: cannot read the RDMA series of {} in {}: {}", a.podNamespace(), a.podName(),
                        a.rdmaDevice(), a.netns(), e.toString());
            } else {
                LOG.debug("pod {}/{}: still cannot read {}: {}", a.podNamespace(), a.podName(), a.rdmaDevice(),
                        e.toString());
            }
            return Optional.empty();
        }
    }

    private ScrapePlan plan(RdmaDevice device, PodAttachment a) {
        HostSnapshot host = discovery.snapshot();
        HostSnapshot pod = new HostSnapshot(0, host.takenAt(), host.backend(), List.of(device), List.of(),
                List.of(), host.rdmaCm(), host.netnsMode(), List.of());
        Labels labels = Labels.of("pod_namespace", a.podNamespace(), "pod_name", a.podName());
        return new ScrapePlanner(name -> true, hwCounters, discovery.counters(sysInPod), labels).plan(pod);
    }

    private MetricSnapshots own(int read) {
        return new MetricSnapshots(
                new GaugeSnapshot(new MetricMetadata(CounterName.PREFIX + "pod_devices",
                        "RDMA devices in pods (moved there by the rdma CNI plugin) whose series the latest scrape"
                                + " read from inside the pod's network namespace"),
                        List.of(new GaugeDataPointSnapshot(read, Labels.EMPTY, null))),
                new CounterSnapshot(new MetricMetadata(CounterName.PREFIX + "pod_read_errors",
                        "Reads of a pod's RDMA device that failed (namespace gone, mount namespaces not allowed);"
                                + " its series were left out of that scrape"),
                        List.of(new CounterDataPointSnapshot(errors.get(), Labels.EMPTY, null, 0L))));
    }
}
