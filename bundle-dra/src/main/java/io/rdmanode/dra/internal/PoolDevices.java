// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.rdmanode.deviceplugin.CandidateDevice;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Granularity;
import io.rdmanode.deviceplugin.Selectors;
import io.rdmanode.discovery.HostSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The devices of the driver's pools on a host: {@link NodeDevice#of} divided among the configured pools by their
 * selectors, in the device-plugin pools' selector language (vendors, devices, drivers, pciAddresses, ifNames,
 * pfNames, rootDevices, linkTypes), applied by the device-plugin layer to its PCI-function candidates, so a
 * selector means here exactly what it means for a device-plugin pool. A device is in the <em>first</em> pool (in
 * configured order) whose selectors take it, as a VF is in the first SR-IOV pool that matches; a pool without
 * selectors takes every device no earlier pool took. Without selectors no layer is needed.
 */
final class PoolDevices {

    /**
     * One pool.
     *
     * @param name its ResourceSlice pool name; "" only for the unnamed pool of tests ({@link #all()}), whose
     *             devices a claim may name under any pool
     */
    record Pool(String name, Selectors selectors) {
        Pool {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(selectors, "selectors");
        }
    }

    private final List<Pool> pools;
    private final Supplier<Optional<DevicePluginLayer>> layer;

    /** One unnamed pool. */
    PoolDevices(Selectors selectors, Supplier<Optional<DevicePluginLayer>> layer) {
        this(List.of(new Pool("", selectors)), layer);
    }

    PoolDevices(List<Pool> pools, Supplier<Optional<DevicePluginLayer>> layer) {
        if (pools.isEmpty()) {
            throw new IllegalArgumentException("no pool");
        }
        this.pools = List.copyOf(pools);
        this.layer = layer;
    }

    static PoolDevices all() {
        return new PoolDevices(Selectors.NONE, Optional::empty);
    }

    /** The pool names, in configured order. */
    List<String> names() {
        return pools.stream().map(Pool::name).toList();
    }

    /**
     * Every pool's devices (device name to device), pools in configured order, each device in one pool at most.
     *
     * @throws IllegalStateException when a pool has selectors and the device-plugin layer is not there to apply
     *                               them (the message says so; the caller reports it)
     */
    Map<String, Map<String, NodeDevice>> byPool(HostSnapshot host) {
        Map<String, Map<String, NodeDevice>> out = new LinkedHashMap<>();
        Map<String, List<String>> ignored = new LinkedHashMap<>();
        divide(host, out, ignored);
        return out;
    }

    /**
     * The devices a pool's selectors take that an earlier pool has (pools in configured order, only those with
     * any; not a pool without selectors, which takes the rest): what "first match wins" took away from them, for
     * {@code /status}.
     */
    Map<String, List<String>> overlaps(HostSnapshot host) {
        Map<String, Map<String, NodeDevice>> ignored = new LinkedHashMap<>();
        Map<String, List<String>> out = new LinkedHashMap<>();
        divide(host, ignored, out);
        return out;
    }

    private void divide(HostSnapshot host, Map<String, Map<String, NodeDevice>> into,
                        Map<String, List<String>> overlaps) {
        Map<String, NodeDevice> all = NodeDevice.of(host);
        List<CandidateDevice> candidates = null;
        Map<String, String> owner = new LinkedHashMap<>();              // device name to its pool
        for (Pool pool : pools) {
            Set<String> taken;
            if (pool.selectors().isEmpty()) {
                taken = null;                                            // every device
            } else {
                if (candidates == null) {
                    DevicePluginLayer l = layer.get().orElseThrow(() -> new IllegalStateException("the DRA pool "
                            + (pool.name().isEmpty() ? "" : pool.name() + " ") + "has selectors and the"
                            + " device-plugin layer (bundle deviceplugin) that applies them is not running"));
                    candidates = l.candidates(host, Granularity.PCI_FUNCTION);
                }
                taken = candidates.stream().filter(c -> pool.selectors().exclusion(c).isEmpty())
                        .map(CandidateDevice::key).collect(Collectors.toSet());
            }
            Map<String, NodeDevice> mine = new LinkedHashMap<>();
            List<String> lost = new ArrayList<>();
            all.forEach((name, d) -> {
                if (taken == null || taken.contains(d.address().toString())) {
                    if (owner.containsKey(name)) {
                        lost.add(name);
                    } else {
                        owner.put(name, pool.name());
                        mine.put(name, d);
                    }
                }
            });
            into.put(pool.name(), mine);
            if (!lost.isEmpty() && taken != null) {          // a pool without selectors takes only the rest
                overlaps.put(pool.name(), lost);
            }
        }
    }

    /**
     * The devices of all pools (device name to device).
     *
     * @throws IllegalStateException see {@link #byPool}
     */
    Map<String, NodeDevice> of(HostSnapshot host) {
        Map<String, NodeDevice> out = new LinkedHashMap<>();
        byPool(host).values().forEach(out::putAll);
        return out;
    }
}
