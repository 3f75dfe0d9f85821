// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.discovery.CharDevice;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What a pool is on one host snapshot: the HCAs it matched (and why the others were not), whether it can
 * serve pods and why not, the NUMA nodes of its HCAs, and the character devices a container gets.
 *
 * @param excluded     device name to the selector that excluded it
 * @param unhealthy    matched device name to why it cannot be used (ports down, uverbs missing)
 * @param reason       why the pool is unhealthy; empty when healthy
 * @param deviceNodes  uverbs, umad and issm of every matched HCA (those present), then rdma_cm
 */
public record PoolState(long revision, List<String> matched, Map<String, String> excluded,
                        Map<String, String> unhealthy, boolean healthy, String reason, List<Long> numaNodes,
                        List<DeviceNode> deviceNodes, List<String> missingDeviceNodes) {

    static final String PERMISSIONS = "rw";

    public PoolState {
        matched = List.copyOf(matched);
        excluded = Collections.unmodifiableMap(new LinkedHashMap<>(excluded));     // host order: by device name
        unhealthy = Collections.unmodifiableMap(new LinkedHashMap<>(unhealthy));
        numaNodes = List.copyOf(numaNodes);
        deviceNodes = List.copyOf(deviceNodes);
        missingDeviceNodes = List.copyOf(missingDeviceNodes);
    }

    static PoolState of(PoolSettings settings, HostSnapshot host) {
        List<String> matched = new ArrayList<>();
        Map<String, String> excluded = new LinkedHashMap<>();
        Map<String, String> unhealthy = new LinkedHashMap<>();
        TreeSet<Long> numa = new TreeSet<>();
        List<DeviceNode> nodes = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (RdmaDevice d : host.devices()) {
            Optional<String> why = settings.selectors().exclusion(d, host);
            if (why.isPresent()) {
                excluded.put(d.name(), why.get());
                continue;
            }
            matched.add(d.name());
            d.pciFunction().flatMap(host::pciFunction).flatMap(PciFunction::numaNode)
                    .ifPresent(n -> numa.add(n.longValue()));
            deviceProblem(d).ifPresent(p -> unhealthy.put(d.name(), p));
            add(d.uverbs(), nodes, missing);
            for (RdmaPort p : d.ports()) {
                add(p.umad(), nodes, missing);
                if (p.issm().present()) {                 // issm only where the port has one (optional)
                    add(p.issm(), nodes, missing);
                }
            }
        }
        if (!matched.isEmpty()) {
            add(host.rdmaCm(), nodes, missing);
        }
        String reason = reason(host, matched, excluded, unhealthy);
        return new PoolState(host.revision(), matched, excluded, unhealthy, reason.isEmpty(), reason,
                List.copyOf(numa), nodes, missing);
    }

    private static Optional<String> deviceProblem(RdmaDevice d) {
        if (!d.uverbs().present()) {
            return Optional.of(d.uverbs().path() + " absent: " + d.uverbs().absentReason().orElse(""));
        }
        if (d.ports().stream().noneMatch(p -> p.state() == RdmaPort.PortState.ACTIVE)) {
            return Optional.of("no port ACTIVE (" + d.ports().stream()
                    .map(p -> "port " + p.number() + " " + p.state()).toList() + ")");
        }
        return Optional.empty();
    }

    private static String reason(HostSnapshot host, List<String> matched, Map<String, String> excluded,
                                 Map<String, String> unhealthy) {
        if (host.netnsMode().mode() == NetnsMode.Mode.EXCLUSIVE) {
            return "RDMA netns mode is exclusive: an HCA belongs to one network namespace and cannot be shared"
                    + " between pods (rdma system set netns shared)";
        }
        if (!host.backend().available()) {
            return "discovery backend " + host.backend().backend() + " unavailable: "
                    + host.backend().unavailableReason().orElse("");
        }
        if (matched.isEmpty()) {
            return host.devices().isEmpty() ? "matches no RDMA device: the host has none"
                    : "matches no RDMA device: " + excluded;
        }
        if (unhealthy.size() == matched.size()) {
            return "no usable HCA: " + unhealthy;
        }
        return "";
    }

    private static void add(CharDevice c, List<DeviceNode> nodes, List<String> missing) {
        if (c.present()) {
            String path = c.path().toString();
            nodes.add(new DeviceNode(path, path, PERMISSIONS));
        } else {
            missing.add(c.path() + ": " + c.absentReason().orElse(""));
        }
    }

    /** Same advertised facts (health, topology): nothing to send to kubelet. */
    boolean sameAdvertisement(PoolState other) {
        return other != null && healthy == other.healthy && numaNodes.equals(other.numaNodes);
    }

    /** Same content apart from the revision. */
    boolean sameContent(PoolState other) {
        return other != null && matched.equals(other.matched) && excluded.equals(other.excluded)
                && unhealthy.equals(other.unhealthy) && reason.equals(other.reason)
                && numaNodes.equals(other.numaNodes) && deviceNodes.equals(other.deviceNodes)
                && missingDeviceNodes.equals(other.missingDeviceNodes);
    }
}
