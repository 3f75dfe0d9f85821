// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Which RDMA devices a pool takes, in the shared-HCA plugin's vocabulary: AND across selector kinds, OR within
 * one list; an empty list does not restrict. PCI ids compare as lower-case hex without {@code 0x}.
 */
public record Selectors(List<String> vendors, List<String> deviceIDs, List<String> drivers, List<String> ifNames,
                        List<String> linkTypes) {

    public Selectors {
        vendors = vendors.stream().map(Selectors::hexId).toList();
        deviceIDs = deviceIDs.stream().map(Selectors::hexId).toList();
        drivers = List.copyOf(drivers);
        ifNames = List.copyOf(ifNames);
        linkTypes = linkTypes.stream().map(t -> t.toLowerCase(Locale.ROOT)).toList();
        for (String t : linkTypes) {
            if (linkLayer(t).isEmpty()) {
                throw new IllegalArgumentException("link type '" + t + "' is not one of ether, infiniband");
            }
        }
    }

    public boolean isEmpty() {
        return vendors.isEmpty() && deviceIDs.isEmpty() && drivers.isEmpty() && ifNames.isEmpty()
                && linkTypes.isEmpty();
    }

    /** Why {@code device} is not taken, naming the selector; empty when it is taken. */
    public Optional<String> exclusion(RdmaDevice device, HostSnapshot host) {
        Optional<PciFunction> pci = device.pciFunction().flatMap(host::pciFunction);
        if (!vendors.isEmpty()) {
            Optional<String> vendor = pci.map(PciFunction::vendor).map(Selectors::hexId);
            if (vendor.isEmpty() || !vendors.contains(vendor.get())) {
                return Optional.of("vendor " + vendor.orElse("(no PCI function)") + " not in vendors " + vendors);
            }
        }
        if (!deviceIDs.isEmpty()) {
            Optional<String> id = pci.map(PciFunction::device).map(Selectors::hexId);
            if (id.isEmpty() || !deviceIDs.contains(id.get())) {
                return Optional.of("device ID " + id.orElse("(no PCI function)") + " not in deviceIDs " + deviceIDs);
            }
        }
        if (!drivers.isEmpty()) {
            Optional<String> driver = device.driver().or(() -> pci.flatMap(PciFunction::driver));
            if (driver.isEmpty() || !drivers.contains(driver.get())) {
                return Optional.of("driver " + driver.orElse("(none)") + " not in drivers " + drivers);
            }
        }
        if (!ifNames.isEmpty()) {
            List<String> names = netdevs(device, pci);
            if (names.stream().noneMatch(ifNames::contains)) {
                return Optional.of("netdevs " + names + " not in ifNames " + ifNames);
            }
        }
        if (!linkTypes.isEmpty()) {
            List<String> layers = device.ports().stream().map(p -> p.linkLayer().name().toLowerCase(Locale.ROOT))
                    .distinct().toList();
            boolean any = device.ports().stream().anyMatch(p -> linkTypes.stream()
                    .anyMatch(t -> linkLayer(t).orElseThrow() == p.linkLayer()));
            if (!any) {
                return Optional.of("link layers " + layers + " not in linkTypes " + linkTypes);
            }
        }
        return Optional.empty();
    }

    static List<String> netdevs(RdmaDevice device, Optional<PciFunction> pci) {
        TreeSet<String> names = new TreeSet<>();
        pci.ifPresent(p -> names.addAll(p.netDevices()));
        device.ports().forEach(p -> p.netdev().ifPresent(names::add));
        device.parentNetdev().ifPresent(names::add);
        return new ArrayList<>(names);
    }

    private static Optional<RdmaPort.LinkLayer> linkLayer(String linkType) {
        return switch (linkType) {
            case "ether", "eth", "ethernet" -> Optional.of(RdmaPort.LinkLayer.ETHERNET);
            case "infiniband", "ib" -> Optional.of(RdmaPort.LinkLayer.INFINIBAND);
            default -> Optional.empty();
        };
    }

    private static String hexId(String id) {
        String lower = id.trim().toLowerCase(Locale.ROOT);
        return lower.startsWith("0x") ? lower.substring(2) : lower;
    }
}
