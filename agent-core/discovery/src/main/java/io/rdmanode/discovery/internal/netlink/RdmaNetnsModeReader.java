// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.netlink;

import io.rdmanode.discovery.NetnsMode;
import java.nio.ByteBuffer;

/**
 * Reads the RDMA subsystem's netns mode with {@code RDMA_NLDEV_CMD_SYS_GET} (nlmsg_type 5126 =
 * RDMA_NL_NLDEV 5 &lt;&lt; 10 | 6) on a NETLINK_RDMA socket; the reply's {@code RDMA_NLDEV_SYS_ATTR_NETNS_MODE}
 * (66, u8) is 0 exclusive, 1 shared ({@code include/uapi/rdma/rdma_netlink.h}). Kernels before 5.3 answer
 * EINVAL; without ib_core the socket itself fails with EPROTONOSUPPORT.
 */
public final class RdmaNetnsModeReader {

    static final int SYS_GET = (5 << 10) | 6;
    static final int ATTR_NETNS_MODE = 66;
    private static final int NLMSG_ERROR = 2;

    private RdmaNetnsModeReader() {
    }

    public static NetnsMode read() {
        try (NetlinkSocket s = NetlinkSocket.open(NetlinkSocket.NETLINK_RDMA, 0, 1000)) {
            ByteBuffer req = NetlinkSocket.le(16).putInt(16).putShort((short) SYS_GET).putShort((short) 0x5)
                    .putInt(1).putInt(0);
            s.send(req.array());
            byte[] buf = new byte[8192];
            int n = s.receive(buf);
            if (n == 0) {
                return NetnsMode.unknown("RDMA netlink SYS_GET: no reply within 1 s");
            }
            return parse(buf, n);
        } catch (NetlinkException e) {
            return NetnsMode.unknown("RDMA netlink unavailable (" + e.getMessage() + "; is ib_core loaded?)");
        }
    }

    static NetnsMode parse(byte[] buf, int n) {
        ByteBuffer b = ByteBuffer.wrap(buf, 0, n).order(java.nio.ByteOrder.nativeOrder());
        int len = b.getInt(0);
        int type = b.getShort(4) & 0xffff;
        if (type == NLMSG_ERROR) {
            int err = -b.getInt(16);
            return NetnsMode.unknown("RDMA netlink SYS_GET failed: errno " + err
                    + (err == 22 ? " (EINVAL: kernel older than 5.3 has no netns mode; it behaves as shared)" : ""));
        }
        for (int off = 16; off + 4 <= Math.min(len, n); ) {
            int alen = b.getShort(off) & 0xffff;
            int atype = b.getShort(off + 2) & 0x3fff;
            if (alen < 4) {
                break;
            }
            if (atype == ATTR_NETNS_MODE && alen >= 5) {
                return NetnsMode.of(buf[off + 4] == 0 ? NetnsMode.Mode.EXCLUSIVE : NetnsMode.Mode.SHARED);
            }
            off += (alen + 3) & ~3;
        }
        return NetnsMode.unknown("RDMA netlink SYS_GET reply has no NETNS_MODE attribute");
    }
}
