// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.deviceplugin.CdiRuntime;
import io.rdmanode.deviceplugin.CandidateDevice;
import io.rdmanode.deviceplugin.CdiDevice;
import io.rdmanode.deviceplugin.CdiSpec;
import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Granularity;
import io.rdmanode.deviceplugin.Ownership;
import io.rdmanode.deviceplugin.PoolView;
import io.rdmanode.deviceplugin.ResourcePool;
import io.rdmanode.deviceplugin.Selection;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePluginException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool of shared HCAs as a {@link ResourcePool}: {@code rdmaHcaMax} interchangeable IDs, each standing for
 * "all the pool's usable HCAs, shared". Every ID carries the pool's health and the NUMA node of the one HCA it
 * names ({@link SharedIdTopology}: dealt round-robin in PCI order);
 * Allocate hands out the character devices of every matched HCA that can work (a port ACTIVE, uverbs present):
 * container path {@code /dev/infiniband/<name>}, host path under the layer's {@code hostDevRoot}. The pool is
 * Unhealthy only when no matched HCA is usable. With CDI on, the pool's spec (one device named after the pool,
 * with those nodes) is written when the pool starts and whenever its nodes change, so it is on disk before any
 * Allocate (a pod admitted by an earlier instance restarts its containers with it); a view without a usable node
 * leaves the file as it is (CDI refuses a device without edits, and pods may still hold it). Stopping leaves the
 * file ({@link #stopped}). Thread-safe: {@link #compute} runs on the discovery thread, the rest on RPC threads.
 */
public final class SharedPool implements ResourcePool {

    private static final Logger LOG = LoggerFactory.getLogger(SharedPool.class);

    static final String PERMISSIONS = "rw";
    static final String CDI_KIND = "rdmanode.io/hca";

    /** The nodes of the latest view, so Allocate does not rebuild them. */
    private record Computed(PoolView view, List<DeviceNode> nodes) { }

    private final PoolSettings settings;
    private final DevicePluginLayer layer;
    private final Optional<CdiSpec> cdi;
    private final Optional<CdiRuntime.Finding> cdiRuntime;
    private volatile Computed current;
    private volatile String cdiProblem = "";

    public SharedPool(PoolSettings settings, DevicePluginLayer layer, Optional<CdiRuntime.Finding> cdiRuntime) {
        this.settings = settings;
        this.layer = layer;
        this.cdi = settings.cdiSpecDir().map(dir -> layer.cdiSpec(dir, CDI_KIND, settings.name(),
                settings.extendedResourceName()));
        this.cdiRuntime = cdiRuntime;
    }

    public PoolSettings settings() {
        return settings;
    }

    @Override
    public String name() {
        return settings.name();
    }

    @Override
    public String resourceName() {
        return settings.extendedResourceName();
    }

    @Override
    public PoolView compute(HostSnapshot host) {
        // An HCA an owner outside the pools holds (a DRA claim) is given to no new container: left out before the
        // selection, so the pool's claim in the ownership table no longer names it either.
        Map<String, String> outside = layer.heldOutside();
        List<CandidateDevice> all = layer.candidates(host, Granularity.HCA);
        List<CandidateDevice> candidates = outside.isEmpty() ? all
                : all.stream().filter(c -> !outside.containsKey(Ownership.deviceId(c))).toList();
        Selection selection = settings.selectors().select(candidates);
        Map<String, String> unusable = new LinkedHashMap<>();
        TreeSet<Long> numa = new TreeSet<>();
        List<DeviceFile> files = new ArrayList<>();
        for (CandidateDevice c : selection.matched()) {
            c.numaNode().ifPresent(n -> numa.add(n.longValue()));
            Optional<String> problem = c.health().problem();
            if (problem.isPresent()) {
                unusable.put(c.key(), problem.get());         // left out of Allocate (issue #8.5)
            } else {
                files.addAll(c.deviceFiles());
            }
        }
        if (unusable.size() < selection.matched().size()) {
            files.add(layer.rdmaCm(host));
        }
        List<DeviceNode> nodes = layer.paths().nodes(files, PERMISSIONS);
        List<String> missing = files.stream().filter(f -> !f.present())
                .map(f -> f.agentPath() + ": " + f.absentReason().orElse("")).toList();
        Map<String, String> heldOutside = new LinkedHashMap<>();
        if (candidates.size() != all.size()) {
            all.stream().filter(c -> outside.containsKey(Ownership.deviceId(c)))
                    .filter(c -> settings.selectors().select(List.of(c)).matched().size() == 1)
                    .forEach(c -> heldOutside.put(c.key(), outside.get(Ownership.deviceId(c))));
        }
        String reason = selection.matched().isEmpty() && !heldOutside.isEmpty()
                ? "every HCA it matches is held outside the device-plugin pools: " + heldOutside
                : reason(host, selection, unusable);
        boolean healthy = reason.isEmpty();
        List<Long> numaNodes = List.copyOf(numa);
        List<List<Long>> idNuma = SharedIdTopology.numaNodes(selection.matched(), settings.rdmaHcaMax());
        List<Device> devices = new ArrayList<>(settings.rdmaHcaMax());
        for (int i = 0; i < settings.rdmaHcaMax(); i++) {
            devices.add(new Device(settings.deviceId(i), healthy, idNuma.get(i)));
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("rdmaHcaMax", settings.rdmaHcaMax());
        details.put("numaNodes", numaNodes);
        details.put("idsPerHca", SharedIdTopology.describe(selection.matched(), settings.rdmaHcaMax()));
        details.put("deviceNodes", nodes.stream().map(DeviceNode::hostPath).toList());
        if (!unusable.isEmpty()) {
            details.put("leftOutOfAllocate", List.copyOf(unusable.keySet()));
        }
        if (!heldOutside.isEmpty()) {
            details.put("heldOutside", heldOutside);
        }
        if (!missing.isEmpty()) {
            details.put("missingDeviceNodes", missing);
        }
        writeCdiSpec(nodes);
        details.put("cdi", cdi.map(c -> (Object) c.file().toString()).orElse(false));
        cdiRuntime.ifPresent(f -> details.put("cdiRuntime", f.toStatus()));
        if (!cdiProblem.isEmpty()) {
            details.put("cdiProblem", cdiProblem);
        }
        PoolView view = new PoolView(host.revision(), devices, selection, unusable, healthy, reason, details);
        current = new Computed(view, nodes);
        return view;
    }

    /** The spec of {@code nodes}, unless it is on disk already; a failure is for the log and {@code /status}. */
    private void writeCdiSpec(List<DeviceNode> nodes) {
        if (cdi.isEmpty() || nodes.isEmpty()) {
            return;
        }
        try {
            cdi.get().write(List.of(new CdiDevice(settings.name(), nodes, Map.of())));
            cdiProblem = "";
        } catch (IOException e) {
            // Allocate writes it again, and fails if it still cannot; until then the log, /status and /readyz say it.
            String problem = "cannot write CDI spec " + cdi.get().file() + ": " + e.getMessage();
            if (!problem.equals(cdiProblem)) {
                LOG.warn("pool={}: {}", settings.name(), problem);
            }
            cdiProblem = problem;
        }
    }

    private static String reason(HostSnapshot host, Selection selection, Map<String, String> unusable) {
        if (host.netnsMode().mode() == NetnsMode.Mode.EXCLUSIVE) {
            return "RDMA netns mode is exclusive: an HCA belongs to one network namespace and cannot be shared"
                    + " between pods (rdma system set netns shared)";
        }
        if (!host.backend().available()) {
            return "discovery backend " + host.backend().backend() + " unavailable: "
                    + host.backend().unavailableReason().orElse("");
        }
        if (selection.matched().isEmpty()) {
            return host.devices().isEmpty() ? "matches no RDMA device: the host has none"
                    : "matches no RDMA device: " + selection.exclusionReasons();
        }
        if (unusable.size() == selection.matched().size()) {
            return "no usable HCA: " + unusable;
        }
        return "";
    }

    @Override
    public ContainerAllocation allocate(PoolView view, List<String> deviceIds) {
        List<String> unknown = deviceIds.stream().filter(id -> !known(id)).toList();
        if (!unknown.isEmpty()) {
            throw new DevicePluginException(DevicePluginException.Code.INVALID_ARGUMENT, resourceName(),
                    "unknown device id(s) " + unknown.stream().map(id -> "'" + id + "'").toList() + " for resource "
                            + resourceName() + " (pool " + settings.name() + " has " + settings.deviceId(0) + " to "
                            + settings.deviceId(settings.rdmaHcaMax() - 1) + ")");
        }
        Computed c = current;
        if (!c.view().healthy()) {
            throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, resourceName(),
                    "pool " + settings.name() + " (" + resourceName() + ") cannot serve: " + c.view().reason());
        }
        Map<String, String> annotations = new LinkedHashMap<>();
        List<String> cdiDevices = new ArrayList<>();
        List<DeviceNode> nodes = c.nodes();
        if (cdi.isPresent()) {
            CdiSpec spec = cdi.get();
            try {
                spec.write(List.of(new CdiDevice(settings.name(), c.nodes(), Map.of())));   // a no-op when on disk
            } catch (IOException e) {
                throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, resourceName(),
                        "cannot write CDI spec " + spec.file() + " for pool " + settings.name() + ": "
                                + e.getMessage(), e);
            }
            annotations.put(spec.annotationKey(), spec.qualifiedName(settings.name()));
            cdiDevices.add(spec.qualifiedName(settings.name()));
            nodes = List.of();                    // the runtime adds them from the spec
        }
        return new ContainerAllocation(Map.of(), List.of(), nodes, annotations, cdiDevices);
    }

    /** Gives the CDI spec back to the layer; the file stays (see {@link io.rdmanode.deviceplugin.CdiSpec}). */
    @Override
    public void stopped() {
        cdi.ifPresent(spec -> {
            try {
                spec.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("CDI spec " + spec.file(), e);
            }
        });
    }

    private boolean known(String id) {
        String prefix = settings.resourceName() + "-";
        if (!id.startsWith(prefix)) {
            return false;
        }
        String n = id.substring(prefix.length());
        if (n.isEmpty() || n.length() > 6 || !n.chars().allMatch(Character::isDigit)
                || (n.length() > 1 && n.charAt(0) == '0')) {
            return false;
        }
        return Integer.parseInt(n) < settings.rdmaHcaMax();
    }
}
