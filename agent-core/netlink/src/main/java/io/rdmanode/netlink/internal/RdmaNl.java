// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * RDMA netlink framing: a 16-byte nlmsghdr followed directly by attributes (no genetlink header), each
 * {@code u16 nla_len, u16 nla_type, payload} padded to 4 bytes, integers in host order, strings
 * NUL-terminated. Constants from {@code include/uapi/rdma/rdma_netlink.h} and {@code linux/netlink.h}.
 * Pure byte work, shared by the client and the tests' fake kernel.
 */
public final class RdmaNl {

    public static final int RDMA_NL_NLDEV = 5;
    public static final int CMD_GET = 1;
    public static final int CMD_SET = 2;
    public static final int CMD_SYS_GET = 6;
    public static final int CMD_SYS_SET = 7;

    public static final int ATTR_DEV_INDEX = 1;
    public static final int ATTR_DEV_NAME = 2;
    public static final int ATTR_PORT_INDEX = 3;
    public static final int ATTR_NODE_GUID = 6;
    public static final int SYS_ATTR_NETNS_MODE = 66;
    public static final int ATTR_DEV_PROTOCOL = 67;
    public static final int NET_NS_FD = 68;

    public static final int NLMSG_ERROR = 2;
    public static final int NLMSG_DONE = 3;
    public static final int NLM_F_REQUEST = 0x1;
    public static final int NLM_F_MULTI = 0x2;
    public static final int NLM_F_ACK = 0x4;
    public static final int NLM_F_DUMP = 0x300;
    static final int HDR = 16;

    private RdmaNl() {
    }

    /** {@code nlmsg_type} of an NLDEV op: {@code RDMA_NL_NLDEV << 10 | op}. */
    public static int type(int op) {
        return (RDMA_NL_NLDEV << 10) | op;
    }

    public static int op(int type) {
        return type & 0x3ff;
    }

    public static int client(int type) {
        return (type >> 10) & 0x3f;
    }

    /** A message under construction. */
    public static final class Builder {
        private final ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.nativeOrder());

        public Builder(int type, int flags, int seq) {
            b.putInt(0).putShort((short) type).putShort((short) flags).putInt(seq).putInt(0);
        }

        public Builder u32(int attr, int v) {
            return attr(attr, 4).putInt(v).pad();
        }

        public Builder u8(int attr, int v) {
            return attr(attr, 1).put((byte) v).pad();
        }

        public Builder u64(int attr, long v) {
            return attr(attr, 8).putLong(v).pad();
        }

        public Builder string(int attr, String v) {
            byte[] s = v.getBytes(StandardCharsets.UTF_8);
            return attr(attr, s.length + 1).put(s).put((byte) 0).pad();
        }

        /** A NLMSG_ERROR payload: errno as a negative int, then the request's header (16 bytes). */
        public Builder error(int errno, int reqType, int reqSeq) {
            b.putInt(-errno).putInt(HDR).putShort((short) reqType).putShort((short) 0).putInt(reqSeq).putInt(0);
            return this;
        }

        private Builder attr(int type, int payload) {
            b.putShort((short) (4 + payload)).putShort((short) type);
            return this;
        }

        private Builder put(byte v) {
            b.put(v);
            return this;
        }

        private Builder put(byte[] v) {
            b.put(v);
            return this;
        }

        private Builder putInt(int v) {
            b.putInt(v);
            return this;
        }

        private Builder putLong(long v) {
            b.putLong(v);
            return this;
        }

        private Builder pad() {
            while (b.position() % 4 != 0) {
                b.put((byte) 0);
            }
            return this;
        }

        public byte[] build() {
            int len = b.position();
            b.putInt(0, len);
            byte[] out = new byte[len];
            System.arraycopy(b.array(), 0, out, 0, len);
            return out;
        }
    }

    /**
     * One received message. {@code attrs} maps attribute number to its raw payload (unknown numbers kept,
     * callers read what they know); {@code errno} is the positive error of a NLMSG_ERROR, 0 for an ACK.
     */
    public record Message(int type, int flags, int seq, Map<Integer, byte[]> attrs, int errno) {

        public boolean isError() {
            return type == NLMSG_ERROR;
        }

        public boolean isDone() {
            return type == NLMSG_DONE;
        }

        public int u32(int attr, int otherwise) {
            byte[] v = attrs.get(attr);
            return v == null || v.length < 4 ? otherwise : ByteBuffer.wrap(v).order(ByteOrder.nativeOrder()).getInt();
        }

        public long u64(int attr, long otherwise) {
            byte[] v = attrs.get(attr);
            return v == null || v.length < 8 ? otherwise : ByteBuffer.wrap(v).order(ByteOrder.nativeOrder()).getLong();
        }

        public int u8(int attr, int otherwise) {
            byte[] v = attrs.get(attr);
            return v == null || v.length < 1 ? otherwise : v[0] & 0xff;
        }

        public String string(int attr, String otherwise) {
            byte[] v = attrs.get(attr);
            if (v == null) {
                return otherwise;
            }
            int end = 0;
            while (end < v.length && v[end] != 0) {
                end++;
            }
            return new String(v, 0, end, StandardCharsets.UTF_8);
        }
    }

    /** Every message in the first {@code n} bytes of a datagram; stops at a truncated header. */
    public static List<Message> parse(byte[] buf, int n) {
        ByteBuffer b = ByteBuffer.wrap(buf, 0, n).order(ByteOrder.nativeOrder());
        List<Message> out = new ArrayList<>();
        for (int off = 0; off + HDR <= n; ) {
            int len = b.getInt(off);
            if (len < HDR || off + len > n) {
                break;
            }
            int type = b.getShort(off + 4) & 0xffff;
            int flags = b.getShort(off + 6) & 0xffff;
            int seq = b.getInt(off + 8);
            Map<Integer, byte[]> attrs = new HashMap<>();
            int errno = 0;
            if (type == NLMSG_ERROR && len >= HDR + 4) {
                errno = -b.getInt(off + HDR);
            } else if (type != NLMSG_DONE) {
                for (int a = off + HDR; a + 4 <= off + len; ) {
                    int alen = b.getShort(a) & 0xffff;
                    int atype = b.getShort(a + 2) & 0x3fff;
                    if (alen < 4 || a + alen > off + len) {
                        break;
                    }
                    byte[] payload = new byte[alen - 4];
                    System.arraycopy(buf, a + 4, payload, 0, payload.length);
                    attrs.put(atype, payload);
                    a += (alen + 3) & ~3;
                }
            }
            out.add(new Message(type, flags, seq, attrs, errno));
            off += (len + 3) & ~3;
        }
        return out;
    }
}
