// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.netlink;

import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.netlink.KernelEventHandler;
import io.rdmanode.netlink.LinkEvent;
import io.rdmanode.netlink.Listening;
import io.rdmanode.netlink.Netlink;
import io.rdmanode.netlink.Uevent;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;

/**
 * Turns kernel notifications into {@link ScanHints}: kobject uevents ({@code ACTION@DEVPATH\0KEY=VALUE\0…},
 * {@code lib/kobject_uevent.c}) for the infiniband, infiniband_verbs, infiniband_mad, net and pci subsystems,
 * and rtnetlink RTM_NEWLINK/RTM_DELLINK ({@code include/uapi/linux/rtnetlink.h}) for link up/down and netns moves,
 * which produce no uevent, both as the netlink bundle parses them. The mapping is pure and unit-tested;
 * {@link #listen} hears them through the netlink bundle's one kernel event listener ({@link Netlink#listen}).
 */
public final class KernelEvents {

    private KernelEvents() {
    }

    /**
     * Listens (in the caller's network namespace: the one whose netdevs discovery reports) and hands each
     * notification's hints to {@code sink}, which debounces them. Dropped events (ENOBUFS) ask for a full rescan:
     * only that is safe then.
     *
     * @throws io.rdmanode.netlink.NetlinkException when the sockets cannot be opened
     */
    public static Listening listen(Consumer<ScanHints> sink) {
        return Netlink.listen("rdma-agent-discovery", new KernelEventHandler() {
            @Override
            public void uevent(Uevent event) {
                fromUevent(event).ifPresent(sink);
            }

            @Override
            public void link(LinkEvent event) {
                fromLinks(List.of(event)).ifPresent(sink);
            }

            @Override
            public void overflow(String reason) {
                sink.accept(ScanHints.fullScan());
            }
        });
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
