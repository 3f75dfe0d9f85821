// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.agent.RdmaDeviceChooser;
import io.rdmanode.agent.SettingException;
import io.rdmanode.deviceplugin.CandidateDevice;
import io.rdmanode.deviceplugin.Exclusion;
import io.rdmanode.deviceplugin.Selectors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One RDMA device chosen by the pools' selectors ({@link RdmaDeviceChooser}, issue 25): the selectors parsed and
 * applied by {@link Selectors} itself, so a consumer's {@code deviceSelectors} mean exactly what a pool's
 * {@code selectors} do. Plain functions; {@link LayerDeviceChooser} offers them as the service.
 */
final class DeviceChoice {

    private DeviceChoice() {
    }

    /**
     * {@code selectors} (kind to entries) as the pools' {@link Selectors}.
     *
     * @throws SettingException naming {@code deviceSelectors.<kind>} and the bad value, or an unknown kind
     */
    static Selectors parse(Map<String, List<String>> selectors) {
        for (String kind : selectors.keySet()) {
            if (!RdmaDeviceChooser.KINDS.contains(kind)) {
                throw new SettingException(RdmaDeviceChooser.PREFIX + kind, "'" + kind + "' is not a selector kind"
                        + " here; one of " + String.join(", ", RdmaDeviceChooser.KINDS));
            }
        }
        try {
            return new Selectors(list(selectors, "vendors"), list(selectors, "devices"), list(selectors, "drivers"),
                    list(selectors, "pciAddresses"), list(selectors, "ifNames"),
                    Selectors.pfSelectors("pfNames", list(selectors, "pfNames")),
                    Selectors.pfSelectors("rootDevices", list(selectors, "rootDevices")),
                    list(selectors, "linkTypes"), Optional.empty());
        } catch (SettingException e) {
            throw e.within(RdmaDeviceChooser.PREFIX.substring(0, RdmaDeviceChooser.PREFIX.length() - 1));
        }
    }

    /**
     * The RDMA device name of the first of {@code hcas} (the layer's whole-HCA candidates, sorted by key) with an
     * RDMA device here that {@code selectors} take.
     *
     * @throws IllegalArgumentException naming every candidate and why it was not taken
     */
    static String choose(Selectors selectors, List<CandidateDevice> hcas) {
        List<String> why = new ArrayList<>();
        for (CandidateDevice c : hcas) {
            if (c.rdma().isEmpty()) {
                why.add(c.key() + ": no RDMA device visible here");
                continue;
            }
            Optional<Exclusion> out = selectors.exclusion(c);
            if (out.isEmpty()) {
                return c.rdma().get().name();
            }
            why.add(c.key() + ": " + out.get());
        }
        throw new IllegalArgumentException("the device selectors take no RDMA device on this host ("
                + (why.isEmpty() ? "it has none" : String.join("; ", why)) + ")");
    }

    /**
     * The selectors a configuration names under {@value RdmaDeviceChooser#PREFIX} (values as ConfigAdmin holds
     * them: {@code String[]}, a collection or one string), kind to entries, in kind order; empty when none.
     */
    static Map<String, List<String>> of(Map<String, ?> properties) {
        Map<String, List<String>> out = new TreeMap<>();
        properties.forEach((key, value) -> {
            if (key.startsWith(RdmaDeviceChooser.PREFIX)) {
                out.put(key.substring(RdmaDeviceChooser.PREFIX.length()), strings(value));
            }
        });
        return out;
    }

    private static List<String> list(Map<String, List<String>> selectors, String kind) {
        return selectors.getOrDefault(kind, List.of());
    }

    private static List<String> strings(Object value) {
        if (value instanceof String[] a) {
            return List.of(a);
        }
        if (value instanceof Collection<?> c) {
            return c.stream().map(String::valueOf).toList();
        }
        return value == null ? List.of() : List.of(value.toString());
    }
}
