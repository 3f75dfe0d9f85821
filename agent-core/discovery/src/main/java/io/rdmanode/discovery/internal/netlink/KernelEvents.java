// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.netlink;

import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.netlink.LinkEvent;
import io.rdmanode.netlink.Uevent;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;

/**
 * Turns kernel notifications into {@link ScanHints}: kobject uevents ({@code ACTION@DEVPATH\0KEY=VALUE\0…},
 * {@code lib/kobject_uevent.c}) for the infiniband, infiniband_verbs, infiniband_mad, net and pci subsystems,
 * and rtnetlink RTM_NEWLINK/RTM_DELLINK ({@code include/uapi/linux/rtnetlink.h}) for link up/down and netns moves,
 * which produce no uevent, both as the netlink bundle parses them. Pure mapping, unit-tested.
 */
public final class KernelEvents {

    private KernelEvents() {
    }

    /** Hints for one uevent; empty for subsystems discovery does not model. */
    public static Optional<ScanHints> fromUevent(Uevent event) {
        String subsystem = event.subsystem();
        String devpath = event.devpath();
        ScanHints h = new ScanHints();
        Optional<PciAddress> pci = lastBdf(devpath);
        switch (subsystem) {
            case "net" -> h.netDevice(event.get("INTERFACE", lastSegment(devpath)));
            case "infiniband" -> h.rdmaDevice(event.get("NAME", lastSegment(devpath)));
            case "pci" -> {
                Optional<PciAddress> slot = PciAddress.parse(event.get("PCI_SLOT_NAME", ""));
                (slot.isPresent() ? slot : pci).ifPresentOrElse(h::pciFunction, h::requestFull);
            }
            case "infiniband_verbs", "infiniband_mad", "misc" -> {
                if (subsystem.equals("misc") && !devpath.endsWith("/rdma_cm")) {
                    return Optional.empty();
                }
                pci.ifPresentOrElse(h::pciFunction, h::requestFull);
            }
            default -> {
                return Optional.empty();
            }
        }
        pci.ifPresent(h::pciFunction);
        return Optional.of(h);
    }

    /** Hints for rtnetlink link messages; empty when none names a link. */
    public static Optional<ScanHints> fromLinks(List<LinkEvent> events) {
        ScanHints h = new ScanHints();
        boolean any = false;
        for (LinkEvent e : events) {
            if (!e.ifname().isEmpty()) {
                h.netDevice(e.ifname());
                any = true;
            }
        }
        return any ? Optional.of(h) : Optional.empty();
    }

    static Optional<PciAddress> lastBdf(String devpath) {
        Matcher m = PciAddress.BDF.matcher(devpath);
        PciAddress last = null;
        while (m.find()) {
            last = PciAddress.parse(m.group()).orElse(last);
        }
        return Optional.ofNullable(last);
    }

    private static String lastSegment(String devpath) {
        return devpath.substring(devpath.lastIndexOf('/') + 1);
    }
}
