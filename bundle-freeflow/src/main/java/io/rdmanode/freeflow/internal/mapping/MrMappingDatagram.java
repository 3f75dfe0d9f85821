// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.mapping;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;

/**
 * The one message Freeflow routers exchange (UDP, port 11232), as the genuine router sends it: its
 * {@code struct IBV_REG_MR_MAPPING_REQ} in host byte order (x86: little-endian), 24 bytes: {@code u32 key} (the
 * lkey, equal to the rkey) at 0, 4 bytes of padding, {@code u64 mr_ptr} (the application's address of the MR) at 8,
 * {@code u64 shm_ptr} (the sending router's own address of the MR's pages) at 16. The receiver answers
 * {@code "ack-<key>"} (decimal, unsigned) in a 1,400-byte datagram, NUL-terminated; the genuine receiver sends its
 * whole receive buffer after the text, ours zeros.
 */
public record MrMappingDatagram(int key, long mrPtr, long shmPtr) {

    static final int SIZE = 24;
    static final int ACK_SIZE = 1400;
    private static final byte[] ACK_PREFIX = "ack-".getBytes(StandardCharsets.US_ASCII);

    /** The 24 bytes the genuine router sends. */
    public ByteBuffer encode() {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, key).putInt(4, 0).putLong(8, mrPtr).putLong(16, shmPtr);
        return b;
    }

    /**
     * Reads a received datagram ({@code b} from position to limit). Longer datagrams are accepted as the genuine
     * receiver accepts them (it reads the first 24 bytes of its buffer).
     *
     * @throws IllegalArgumentException when it is shorter than 24 bytes
     */
    public static MrMappingDatagram decode(ByteBuffer b) {
        if (b.remaining() < SIZE) {
            throw new IllegalArgumentException("an MR mapping is " + SIZE + " bytes, got " + b.remaining());
        }
        ByteBuffer le = b.slice().order(ByteOrder.LITTLE_ENDIAN);
        return new MrMappingDatagram(le.getInt(0), le.getLong(8), le.getLong(16));
    }

    /** The acknowledgement of {@code key}: {@code ack-<key>}, a NUL, zeros up to 1,400 bytes. */
    public static ByteBuffer ack(int key) {
        byte[] text = ("ack-" + Integer.toUnsignedString(key)).getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(ACK_SIZE);
        b.put(text).put((byte) 0).clear();
        return b;
    }

    /**
     * The key an acknowledgement names: {@code ack-} and decimal digits up to a NUL or the end (what follows the
     * NUL in a genuine router's acknowledgement is whatever its buffer held); empty when it is not one.
     */
    public static OptionalInt ackedKey(ByteBuffer b) {
        ByteBuffer d = b.slice();
        if (d.remaining() < ACK_PREFIX.length + 1) {
            return OptionalInt.empty();
        }
        for (int i = 0; i < ACK_PREFIX.length; i++) {
            if (d.get(i) != ACK_PREFIX[i]) {
                return OptionalInt.empty();
            }
        }
        long value = 0;
        int i = ACK_PREFIX.length;
        for (; i < d.limit() && d.get(i) != 0; i++) {
            byte c = d.get(i);
            if (c < '0' || c > '9' || i - ACK_PREFIX.length >= 10) {
                return OptionalInt.empty();
            }
            value = value * 10 + (c - '0');
        }
        if (i == ACK_PREFIX.length || value > 0xFFFF_FFFFL) {
            return OptionalInt.empty();
        }
        return OptionalInt.of((int) value);
    }
}
