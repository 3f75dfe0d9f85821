// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.rdmanode.deviceplugin.CandidateDevice;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Granularity;
import io.rdmanode.deviceplugin.Selectors;
import io.rdmanode.discovery.HostSnapshot;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The devices of the driver's pool on a host: {@link NodeDevice#of} narrowed by the pool's selectors, in the
 * device-plugin pools' selector language (vendors, devices, drivers, pciAddresses, ifNames, pfNames, rootDevices,
 * linkTypes), applied by the device-plugin layer to its PCI-function candidates, so a selector means here exactly
 * what it means for a device-plugin pool. Without selectors every device is in the pool and no layer is needed.
 */
final class PoolDevices {

    private final Selectors selectors;
    private final Supplier<Optional<DevicePluginLayer>> layer;

    PoolDevices(Selectors selectors, Supplier<Optional<DevicePluginLayer>> layer) {
        this.selectors = selectors;
        this.layer = layer;
    }

    static PoolDevices all() {
        return new PoolDevices(Selectors.NONE, Optional::empty);
    }

    /**
     * @throws IllegalStateException when the pool has selectors and the device-plugin layer is not there to apply
     *                               them (the message says so; the caller reports it)
     */
    Map<String, NodeDevice> of(HostSnapshot host) {
        Map<String, NodeDevice> all = NodeDevice.of(host);
        if (selectors.isEmpty()) {
            return all;
        }
        DevicePluginLayer l = layer.get().orElseThrow(() -> new IllegalStateException("the DRA pool has selectors"
                + " and the device-plugin layer (bundle deviceplugin) that applies them is not running"));
        Set<String> taken = l.candidates(host, Granularity.PCI_FUNCTION).stream()
                .filter(c -> selectors.exclusion(c).isEmpty()).map(CandidateDevice::key).collect(Collectors.toSet());
        Map<String, NodeDevice> out = new LinkedHashMap<>();
        all.forEach((name, d) -> {
            if (taken.contains(d.address().toString())) {
                out.put(name, d);
            }
        });
        return out;
    }
}
