// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Field access on little-endian buffers whose index 0 is the start of a struct. */
public final class Wire {

    /** The client indexes arrays of this size with handles and channel fd numbers (MAP_SIZE). */
    public static final int MAP_SIZE = 10240;

    private Wire() {
    }

    public static int i32(ByteBuffer b, int off) {
        return b.getInt(off);
    }

    public static long u32(ByteBuffer b, int off) {
        return b.getInt(off) & 0xffffffffL;
    }

    public static int u8(ByteBuffer b, int off) {
        return b.get(off) & 0xff;
    }

    public static int u16(ByteBuffer b, int off) {
        return b.getShort(off) & 0xffff;
    }

    /** A handle field: 1..MAP_SIZE-1, else the request is refused before it reaches any table. */
    public static int handle(ByteBuffer b, int off, String what) {
        int h = b.getInt(off);
        if (h <= 0 || h >= MAP_SIZE) {
            throw new WireException(Errno.EINVAL, what + " handle " + Integer.toUnsignedString(h)
                    + " out of range 1.." + (MAP_SIZE - 1));
        }
        return h;
    }

    /** A NUL-terminated C string in a fixed char array. */
    public static String cstring(ByteBuffer b, int off, int width) {
        int len = 0;
        while (len < width && b.get(off + len) != 0) {
            len++;
        }
        byte[] s = new byte[len];
        b.get(off, s);
        return new String(s, StandardCharsets.US_ASCII);
    }

    public static void putCstring(ByteBuffer b, int off, int width, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length >= width) {
            throw new IllegalArgumentException("name longer than " + (width - 1) + ": " + s);
        }
        b.put(off, bytes);
        b.put(off + bytes.length, (byte) 0);
    }

    public static ByteBuffer allocate(int size) {
        return ByteBuffer.allocate(size).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    }
}
