// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.netlink;

import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.internal.ScanHints;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;

/**
 * Turns kernel notifications into {@link ScanHints}: kobject uevents ({@code ACTION@DEVPATH\0KEY=VALUE\0…},
 * {@code lib/kobject_uevent.c}) for the infiniband, infiniband_verbs, infiniband_mad, net and pci subsystems,
 * and rtnetlink RTM_NEWLINK/RTM_DELLINK ({@code include/uapi/linux/rtnetlink.h}) for link up/down and netns moves,
 * which produce no uevent. Pure parsing, unit-tested with recorded messages.
 */
public final class KernelEvents {

    static final int RTM_NEWLINK = 16;
    static final int RTM_DELLINK = 17;
    static final int IFLA_IFNAME = 3;

    private KernelEvents() {
    }

    /** Hints for one uevent datagram; empty for subsystems discovery does not model. */
    public static Optional<ScanHints> fromUevent(byte[] buf, int n) {
        Map<String, String> env = new HashMap<>();
        int start = 0;
        for (int i = 0; i <= n; i++) {
            if (i == n || buf[i] == 0) {
                String kv = new String(buf, start, i - start, StandardCharsets.UTF_8);
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    env.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                start = i + 1;
            }
        }
        String subsystem = env.getOrDefault("SUBSYSTEM", "");
        String devpath = env.getOrDefault("DEVPATH", "");
        ScanHints h = new ScanHints();
        Optional<PciAddress> pci = lastBdf(devpath);
        switch (subsystem) {
            case "net" -> h.netDevice(env.getOrDefault("INTERFACE", lastSegment(devpath)));
            case "infiniband" -> h.rdmaDevice(env.getOrDefault("NAME", lastSegment(devpath)));
            case "pci" -> {
                Optional<PciAddress> slot = PciAddress.parse(env.getOrDefault("PCI_SLOT_NAME", ""));
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

    /** Hints for one rtnetlink datagram (several messages possible); empty when none is about a link. */
    public static Optional<ScanHints> fromRtnetlink(byte[] buf, int n) {
        ByteBuffer b = ByteBuffer.wrap(buf, 0, n).order(ByteOrder.nativeOrder());
        ScanHints h = new ScanHints();
        boolean any = false;
        for (int off = 0; off + 16 <= n; ) {
            int len = b.getInt(off);
            int type = b.getShort(off + 4) & 0xffff;
            if (len < 16 || off + len > n) {
                break;
            }
            if (type == RTM_NEWLINK || type == RTM_DELLINK) {
                String name = ifname(b, buf, off + 16 + 16, off + len);
                if (name != null) {
                    h.netDevice(name);
                    any = true;
                }
            }
            off += (len + 3) & ~3;
        }
        return any ? Optional.of(h) : Optional.empty();
    }

    private static String ifname(ByteBuffer b, byte[] buf, int from, int end) {
        for (int off = from; off + 4 <= end; ) {
            int alen = b.getShort(off) & 0xffff;
            int atype = b.getShort(off + 2) & 0x3fff;
            if (alen < 4) {
                return null;
            }
            if (atype == IFLA_IFNAME) {
                int strEnd = off + 4;
                while (strEnd < off + alen && buf[strEnd] != 0) {
                    strEnd++;
                }
                return new String(buf, off + 4, strEnd - off - 4, StandardCharsets.UTF_8);
            }
            off += (alen + 3) & ~3;
        }
        return null;
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
