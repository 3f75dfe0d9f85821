// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.discovery.NetDevice;
import io.rdmanode.discovery.RdmaPort;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * A pool's selectors in the SR-IOV plugin's vocabulary, as a {@link VfMatcher}: AND across kinds, OR within
 * a list, an empty list does not restrict. {@code pfNames} and {@code rootDevices} take VF index ranges after
 * {@code #} ({@code ens1f0#0-3,6}; 0-based, inclusive; the PF part compared case-insensitively), as the peer's.
 * Pending the shared selector engine of the device-plugin layer (issue #9), which replaces this class.
 */
final class SriovSelectors implements VfMatcher {

    /** A PF name or address with the VF indexes it admits (all when no {@code #}). */
    record PfRange(String pf, Optional<BitSet> indexes) {

        static PfRange parse(String kind, String text) {
            int hash = text.indexOf('#');
            String pf = (hash < 0 ? text : text.substring(0, hash)).trim().toLowerCase(Locale.ROOT);
            if (pf.isEmpty()) {
                throw new IllegalArgumentException(kind + " '" + text + "': no PF before '#'");
            }
            if (hash < 0) {
                return new PfRange(pf, Optional.empty());
            }
            BitSet set = new BitSet();
            for (String part : text.substring(hash + 1).split(",")) {
                String[] ends = part.trim().split("-", -1);
                try {
                    int from = Integer.parseInt(ends[0].trim());
                    int to = ends.length == 2 ? Integer.parseInt(ends[1].trim()) : from;
                    if (ends.length > 2 || from < 0 || to < from) {
                        throw new NumberFormatException();
                    }
                    set.set(from, to + 1);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(kind + " '" + text + "': '" + part.trim()
                            + "' is not a VF index or range such as 0-3 (0-based, inclusive)");
                }
            }
            return new PfRange(pf, Optional.of(set));
        }

        boolean admits(String pfKey, int index) {
            return pf.equals(pfKey.toLowerCase(Locale.ROOT)) && indexes.map(s -> s.get(index)).orElse(true);
        }
    }

    private final List<String> vendors;
    private final List<String> devices;
    private final List<String> drivers;
    private final List<String> pciAddresses;
    private final List<PfRange> pfNames;
    private final List<PfRange> rootDevices;
    private final List<String> linkTypes;
    private final boolean isRdma;

    private SriovSelectors(SriovPoolDevicePlugin.Config c) {
        vendors = hex(c.selectors_vendors());
        devices = hex(c.selectors_devices());
        drivers = List.of(c.selectors_drivers());
        pciAddresses = List.of(c.selectors_pciAddresses()).stream().map(a -> a.trim().toLowerCase(Locale.ROOT)).toList();
        pfNames = List.of(c.selectors_pfNames()).stream().map(t -> PfRange.parse("pfNames", t)).toList();
        rootDevices = List.of(c.selectors_rootDevices()).stream().map(t -> PfRange.parse("rootDevices", t)).toList();
        linkTypes = List.of(c.selectors_linkTypes()).stream().map(t -> t.trim().toLowerCase(Locale.ROOT)).toList();
        isRdma = c.selectors_isRdma();
        for (String t : linkTypes) {
            if (!t.equals("ether") && !t.equals("infiniband")) {
                throw new IllegalArgumentException("linkTypes '" + t + "' is not one of ether, infiniband");
            }
        }
    }

    /** @throws IllegalArgumentException for a malformed range or link type, or no selector at all */
    static SriovSelectors of(SriovPoolDevicePlugin.Config c) {
        SriovSelectors s = new SriovSelectors(c);
        if (s.vendors.isEmpty() && s.devices.isEmpty() && s.drivers.isEmpty() && s.pciAddresses.isEmpty()
                && s.pfNames.isEmpty() && s.rootDevices.isEmpty() && s.linkTypes.isEmpty() && !s.isRdma) {
            throw new IllegalArgumentException("pool " + c.name() + " has no selectors: set at least one of "
                    + "selectors.vendors, devices, drivers, pciAddresses, pfNames, rootDevices, linkTypes, isRdma");
        }
        return s;
    }

    @Override
    public Optional<String> exclusion(SriovVf vf, HostIndex host) {
        if (!vendors.isEmpty() && !vendors.contains(vf.vendor())) {
            return Optional.of("vendor " + vf.vendor() + " not in vendors " + vendors);
        }
        if (!devices.isEmpty() && !devices.contains(vf.device())) {
            return Optional.of("device " + vf.device() + " not in devices " + devices);
        }
        if (!drivers.isEmpty() && !vf.driver().map(drivers::contains).orElse(false)) {
            return Optional.of("driver " + vf.driver().orElse("(none)") + " not in drivers " + drivers);
        }
        if (!pciAddresses.isEmpty() && !pciAddresses.contains(vf.id())) {
            return Optional.of("PCI address " + vf.id() + " not in pciAddresses " + pciAddresses);
        }
        if (!pfNames.isEmpty() && vf.pfNetdevs().stream().noneMatch(n -> admits(pfNames, n, vf.index()))) {
            return Optional.of("PF " + vf.pfNetdevs() + " VF " + vf.index() + " not in pfNames "
                    + List.of(texts(pfNames)));
        }
        if (!rootDevices.isEmpty() && !admits(rootDevices, vf.pf().toString(), vf.index())) {
            return Optional.of("PF " + vf.pf() + " VF " + vf.index() + " not in rootDevices "
                    + List.of(texts(rootDevices)));
        }
        if (!linkTypes.isEmpty()) {
            List<String> types = linkTypes(vf, host);
            if (types.stream().noneMatch(linkTypes::contains)) {
                return Optional.of("link types " + types + " not in linkTypes " + linkTypes);
            }
        }
        if (isRdma && vf.rdmaDevices().isEmpty()) {
            return Optional.of("isRdma: no RDMA device (driver " + vf.driver().orElse("none") + ")");
        }
        return Optional.empty();
    }

    private static boolean admits(List<PfRange> ranges, String pf, int index) {
        return ranges.stream().anyMatch(r -> r.admits(pf, index));
    }

    private static String[] texts(List<PfRange> ranges) {
        return ranges.stream().map(r -> r.pf() + r.indexes().map(s -> "#" + s).orElse("")).toArray(String[]::new);
    }

    /** The VF's netdevs' types; without netdevs (moved into a pod, or vfio) its RDMA ports', then its PF's. */
    private static List<String> linkTypes(SriovVf vf, HostIndex host) {
        List<String> types = new ArrayList<>(types(vf.netDevices(), host));
        if (types.isEmpty()) {
            vf.rdmaDevices().stream().map(host::device).flatMap(Optional::stream).flatMap(d -> d.ports().stream())
                    .map(p -> p.linkLayer() == RdmaPort.LinkLayer.INFINIBAND ? "infiniband" : "ether")
                    .distinct().forEach(types::add);
        }
        if (types.isEmpty()) {
            types.addAll(types(vf.pfNetdevs(), host));
        }
        return types;
    }

    private static List<String> types(List<String> netdevs, HostIndex host) {
        Function<NetDevice, String> type = n -> n.linkType().name().toLowerCase(Locale.ROOT);
        return netdevs.stream().map(host::netDevice).flatMap(Optional::stream).map(type).distinct().toList();
    }

    private static List<String> hex(String[] ids) {
        return List.of(ids).stream().map(id -> {
            String lower = id.trim().toLowerCase(Locale.ROOT);
            return lower.startsWith("0x") ? lower.substring(2) : lower;
        }).toList();
    }
}
