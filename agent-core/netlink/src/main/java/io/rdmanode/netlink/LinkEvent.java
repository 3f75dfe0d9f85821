// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * An rtnetlink RTM_NEWLINK or RTM_DELLINK message ({@code include/uapi/linux/rtnetlink.h}): link up/down,
 * rename, and moves between namespaces, which produce no uevent.
 *
 * @param kind    NEW (created or changed) or DEL (deleted or moved away)
 * @param ifindex ifinfomsg.ifi_index
 * @param ifname  IFLA_IFNAME, empty when absent
 */
public record LinkEvent(Kind kind, int ifindex, String ifname) {

    public enum Kind { NEW, DEL }

    static final int RTM_NEWLINK = 16;
    static final int RTM_DELLINK = 17;
    static final int IFLA_IFNAME = 3;

    /** Every link message in one datagram (host byte order), others skipped. */
    public static List<LinkEvent> parse(byte[] buf, int n) {
        ByteBuffer b = ByteBuffer.wrap(buf, 0, n).order(ByteOrder.nativeOrder());
        List<LinkEvent> out = new ArrayList<>();
        for (int off = 0; off + 16 <= n; ) {
            int len = b.getInt(off);
            int type = b.getShort(off + 4) & 0xffff;
            if (len < 16 || off + len > n) {
                break;
            }
            if ((type == RTM_NEWLINK || type == RTM_DELLINK) && len >= 32) {
                int ifindex = b.getInt(off + 16 + 4);
                String name = ifname(b, buf, off + 32, off + len);
                out.add(new LinkEvent(type == RTM_NEWLINK ? Kind.NEW : Kind.DEL, ifindex, name));
            }
            off += (len + 3) & ~3;
        }
        return out;
    }

    private static String ifname(ByteBuffer b, byte[] buf, int from, int end) {
        for (int off = from; off + 4 <= end; ) {
            int alen = b.getShort(off) & 0xffff;
            int atype = b.getShort(off + 2) & 0x3fff;
            if (alen < 4) {
                return "";
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
        return "";
    }
}
