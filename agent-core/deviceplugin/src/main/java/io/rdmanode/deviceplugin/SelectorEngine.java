// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.agent.SettingException;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.RdmaPort;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The one selector engine behind {@link Selectors}: normalises and checks selector values (a bad one is a
 * {@link SettingException} whose property is the selector kind), and finds the first selector kind a candidate
 * fails, with the device's value in the reason. Package-private: the API package holds
 * it so that {@link Selectors} does not reach into the implementation package.
 */
final class SelectorEngine {

    private static final Pattern HEX_ID = Pattern.compile("[0-9a-f]{1,4}");

    private SelectorEngine() {
    }

    static List<String> hexIds(String kind, List<String> ids) {
        List<String> out = new ArrayList<>();
        for (String id : ids) {
            String h = hexId(id);
            if (!HEX_ID.matcher(h).matches()) {
                throw new SettingException(kind, kind + ": '" + id + "' is not a PCI id (hex, e.g. 15b3)");
            }
            out.add(h);
        }
        return List.copyOf(out);
    }

    static List<String> plain(String kind, List<String> values) {
        for (String v : values) {
            if (v == null || v.isBlank()) {
                throw new SettingException(kind, kind + ": empty entry");
            }
        }
        return values.stream().map(String::trim).toList();
    }

    static List<String> pciAddresses(String kind, List<String> values) {
        List<String> out = new ArrayList<>();
        for (String v : values) {
            String t = v.trim().toLowerCase(Locale.ROOT);
            if (PciAddress.parse(t).isEmpty()) {
                throw new SettingException(kind, kind + ": '" + v + "' is not a PCI address (dddd:bb:dd.f)");
            }
            out.add(t);
        }
        return List.copyOf(out);
    }

    static List<PfSelector> pfSelectors(String kind, List<String> entries) {
        List<PfSelector> out = new ArrayList<>();
        for (String e : entries) {
            try {
                out.add(PfSelector.parse(e));
            } catch (IllegalArgumentException ex) {
                throw new SettingException(kind, kind + ": " + ex.getMessage(), ex);
            }
        }
        return List.copyOf(out);
    }

    static List<PfSelector> rootDevices(List<PfSelector> selectors) {
        for (PfSelector s : selectors) {
            if (PciAddress.parse(s.pf()).isEmpty()) {
                throw new SettingException("rootDevices", "rootDevices: '" + s + "' does not start with a PCI address"
                        + " (dddd:bb:dd.f)");
            }
        }
        return List.copyOf(selectors);
    }

    static List<String> linkTypes(List<String> types) {
        List<String> out = new ArrayList<>();
        for (String t : types) {
            String l = t.trim().toLowerCase(Locale.ROOT);
            if (linkLayer(l).isEmpty()) {
                throw new SettingException("linkTypes", "linkTypes: '" + t + "' is not one of ether, infiniband");
            }
            out.add(l);
        }
        return List.copyOf(out);
    }

    static Selection select(Selectors s, List<CandidateDevice> candidates) {
        List<CandidateDevice> matched = new ArrayList<>();
        List<Exclusion> excluded = new ArrayList<>();
        for (CandidateDevice c : candidates) {
            Optional<Exclusion> why = exclusion(s, c);
            if (why.isPresent()) {
                excluded.add(why.get());
            } else {
                matched.add(c);
            }
        }
        return new Selection(matched, excluded);
    }

    static Optional<Exclusion> exclusion(Selectors s, CandidateDevice c) {
        Optional<PciInfo> pci = c.pci();
        String key = c.key();
        if (!s.vendors().isEmpty()) {
            Optional<String> v = pci.map(PciInfo::vendor).map(SelectorEngine::hexId);
            if (v.isEmpty() || !s.vendors().contains(v.get())) {
                return out(key, "vendors", "vendor", v.orElse(NO_PCI), s.vendors());
            }
        }
        if (!s.devices().isEmpty()) {
            Optional<String> d = pci.map(PciInfo::device).map(SelectorEngine::hexId);
            if (d.isEmpty() || !s.devices().contains(d.get())) {
                return out(key, "devices", "device ID", d.orElse(NO_PCI), s.devices());
            }
        }
        if (!s.drivers().isEmpty()) {
            Optional<String> d = pci.flatMap(PciInfo::driver)
                    .or(() -> c.rdma().flatMap(r -> r.driver()));
            if (d.isEmpty() || !s.drivers().contains(d.get())) {
                return out(key, "drivers", "driver", d.orElse("(none)"), s.drivers());
            }
        }
        if (!s.pciAddresses().isEmpty()) {
            Optional<String> a = pci.map(p -> p.address().toString());
            if (a.isEmpty() || !s.pciAddresses().contains(a.get())) {
                return out(key, "pciAddresses", "PCI address", a.orElse(NO_PCI), s.pciAddresses());
            }
        }
        if (!s.ifNames().isEmpty()) {
            List<String> names = c.netdevNames().stream().sorted().toList();
            if (names.stream().noneMatch(s.ifNames()::contains)) {
                return out(key, "ifNames", "netdevs", names.toString(), s.ifNames());
            }
        }
        if (!s.pfNames().isEmpty()) {
            boolean any = s.pfNames().stream().anyMatch(sel -> matchesPf(sel, c, true));
            if (!any) {
                return out(key, "pfNames", "PF", pfValue(c, true), s.pfNames());
            }
        }
        if (!s.rootDevices().isEmpty()) {
            boolean any = s.rootDevices().stream().anyMatch(sel -> matchesPf(sel, c, false));
            if (!any) {
                return out(key, "rootDevices", "PF", pfValue(c, false), s.rootDevices());
            }
        }
        if (!s.linkTypes().isEmpty()) {
            List<String> layers = linkLayers(c);
            if (layers.stream().noneMatch(l -> s.linkTypes().stream().anyMatch(t -> canonical(t).equals(l)))) {
                return out(key, "linkTypes", "link layers", layers.toString(), s.linkTypes());
            }
        }
        if (s.isRdma().isPresent() && s.isRdma().get() != c.isRdma()) {
            String value = c.rdmaPresence().name().toLowerCase(Locale.ROOT).replace('_', ' ');
            return Optional.of(new Exclusion(key, "isRdma", String.valueOf(c.isRdma()),
                    "RDMA " + c.isRdma() + " (RDMA device " + value + ") not isRdma " + s.isRdma().get()));
        }
        return Optional.empty();
    }

    private static final String NO_PCI = "(no PCI function)";

    /** {@code vendor 8086 not in vendors [15b3]}: the device's value, then the selector with its list. */
    private static Optional<Exclusion> out(String key, String kind, String what, String value, List<?> list) {
        String label = kind.equals("devices") ? "deviceIDs" : kind;       // the shared plugin's (older) name
        return Optional.of(new Exclusion(key, kind, value, what + " " + value + " not in " + label + " " + list));
    }

    /**
     * A VF matches when its PF (by netdev or address) is named and its index is in range; a PF candidate
     * matches its own name when no VF range is given (SR-IOV peer behaviour for PF pools).
     */
    private static boolean matchesPf(PfSelector sel, CandidateDevice c, boolean byName) {
        if (c.pci().isEmpty()) {
            return false;
        }
        PciInfo p = c.pci().get();
        if (p.isVirtualFunction()) {
            boolean pfNamed = byName
                    ? p.pfNetdevs().stream().anyMatch(n -> n.toLowerCase(Locale.ROOT).equals(sel.pf()))
                    : p.physicalFunction().map(a -> a.toString().equals(sel.pf())).orElse(false);
            return pfNamed && p.vfIndex().map(sel::includesVf).orElse(false);
        }
        if (!sel.ranges().isEmpty()) {
            return false;
        }
        return byName
                ? c.netdevs().stream().filter(n -> n.role() == NetdevRef.Role.FUNCTION)
                        .anyMatch(n -> n.name().toLowerCase(Locale.ROOT).equals(sel.pf()))
                : p.address().toString().equals(sel.pf());
    }

    private static String pfValue(CandidateDevice c, boolean byName) {
        if (c.pci().isEmpty()) {
            return NO_PCI;
        }
        PciInfo p = c.pci().get();
        if (p.isVirtualFunction()) {
            String pf = byName ? p.pfNetdevs().toString() : p.physicalFunction().map(Object::toString).orElse("?");
            return pf + " VF " + p.vfIndex().map(String::valueOf).orElse("?");
        }
        return (byName ? c.netdevs().stream().filter(n -> n.role() == NetdevRef.Role.FUNCTION)
                .map(NetdevRef::name).toList().toString() : p.address().toString()) + " (a PF)";
    }

    /** Port link layers when the RDMA device is visible, else the netdevs' link types; canonical names. */
    static List<String> linkLayers(CandidateDevice c) {
        if (c.rdma().isPresent() && !c.rdma().get().ports().isEmpty()) {
            return c.rdma().get().ports().stream().map(p -> switch (p.linkLayer()) {
                case ETHERNET -> "ethernet";
                case INFINIBAND -> "infiniband";
                case UNKNOWN -> "unknown";
            }).distinct().toList();
        }
        return c.netdevs().stream().flatMap(n -> n.linkType().stream()).map(t -> switch (t) {
            case ETHER -> "ethernet";
            case INFINIBAND -> "infiniband";
            case LOOPBACK -> "loopback";
            case OTHER -> "other";
        }).distinct().toList();
    }

    private static String canonical(String type) {
        return linkLayer(type).map(l -> l == RdmaPort.LinkLayer.ETHERNET ? "ethernet" : "infiniband").orElse(type);
    }

    static Optional<RdmaPort.LinkLayer> linkLayer(String linkType) {
        return switch (linkType) {
            case "ether", "eth", "ethernet" -> Optional.of(RdmaPort.LinkLayer.ETHERNET);
            case "infiniband", "ib" -> Optional.of(RdmaPort.LinkLayer.INFINIBAND);
            default -> Optional.empty();
        };
    }

    static String hexId(String id) {
        String lower = id.trim().toLowerCase(Locale.ROOT);
        return lower.startsWith("0x") ? lower.substring(2) : lower;
    }
}
