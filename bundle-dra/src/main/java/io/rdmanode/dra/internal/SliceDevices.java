// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaPort;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The ResourceSlice devices of a host: one per {@link NodeDevice} (a PF or VF with its RDMA device), named by its
 * PCI address, with the attributes a DeviceClass or claim selects on. Unqualified names are in the driver's
 * domain; {@code resource.kubernetes.io/pciBusID} and {@code pcieRoot} are the standard ones other drivers
 * publish too. At most 32 attributes per device, strings at most 64 characters (longer values are cut).
 */
final class SliceDevices {

    static final String STANDARD = "resource.kubernetes.io/";
    private static final int MAX_STRING = 64;

    private final PcieRoots roots;
    private final PoolDevices pool;

    SliceDevices(PcieRoots roots) {
        this(roots, PoolDevices.all());
    }

    SliceDevices(PcieRoots roots, PoolDevices pool) {
        this.roots = roots;
        this.pool = pool;
    }

    /** @throws IllegalStateException when the pool's devices cannot be told (see {@link PoolDevices#of}) */
    List<Device> of(HostSnapshot host) {
        return pool.of(host).values().stream().map(d -> device(host, d)).toList();
    }

    /**
     * Each pool's devices, pools in configured order.
     *
     * @throws IllegalStateException when the pools' devices cannot be told (see {@link PoolDevices#byPool})
     */
    Map<String, List<Device>> byPool(HostSnapshot host) {
        Map<String, List<Device>> out = new java.util.LinkedHashMap<>();
        pool.byPool(host).forEach((name, devices) -> out.put(name, devices.values().stream()
                .map(d -> device(host, d)).toList()));
        return out;
    }

    private Device device(HostSnapshot host, NodeDevice d) {
        Map<String, DeviceAttribute> a = new TreeMap<>();
        PciFunction f = d.function();
        string(a, STANDARD + "pciBusID", f.address().toString());
        roots.of(f.address()).ifPresent(r -> string(a, STANDARD + "pcieRoot", r));
        string(a, "rdmaDevice", d.rdma().name());
        Optional<RdmaPort> port = d.rdma().port(1);
        port.ifPresent(p -> {
            string(a, "linkLayer", p.linkLayer() == RdmaPort.LinkLayer.INFINIBAND ? "InfiniBand"
                    : p.linkLayer() == RdmaPort.LinkLayer.ETHERNET ? "Ethernet" : "Unknown");
            string(a, "portState", p.state().name());
            p.rate().ifPresent(r -> string(a, "rate", r));
        });
        f.netDevices().stream().findFirst().ifPresent(n -> string(a, "netdev", n));
        a.put("virtualFunction", new DeviceAttributeBuilder().withBool(f.isVirtualFunction()).build());
        f.vfIndex().ifPresent(i -> integer(a, "vfIndex", i));
        f.physicalFunction().ifPresent(pf -> {
            string(a, "pfPciAddress", pf.toString());
            host.pciFunction(pf).flatMap(p -> p.netDevices().stream().findFirst()).ifPresent(n -> string(a, "pfName", n));
        });
        f.numaNode().ifPresent(n -> integer(a, "numaNode", n));
        string(a, "vendorID", f.vendor());
        string(a, "deviceID", f.device());
        d.rdma().fwVersion().ifPresent(v -> string(a, "firmwareVersion", v));
        d.rdma().nodeGuid().ifPresent(g -> string(a, "nodeGUID", g.toLowerCase(Locale.ROOT)));
        return new DeviceBuilder().withName(d.name()).withAttributes(a).build();
    }

    private static void string(Map<String, DeviceAttribute> a, String name, String value) {
        a.put(name, new DeviceAttributeBuilder().withString(value.length() > MAX_STRING
                ? value.substring(0, MAX_STRING) : value).build());
    }

    private static void integer(Map<String, DeviceAttribute> a, String name, long value) {
        a.put(name, new DeviceAttributeBuilder().withInt(value).build());
    }
}
