// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs.internal;

import java.nio.ByteOrder;

/** GUIDs and GIDs written the way the kernel writes them in {@code sysfs-class-infiniband}. */
final class IbvFormat {

    private IbvFormat() {
    }

    /** A {@code __be64} returned in a host register ({@code ibv_get_device_guid}). */
    static String guid(long beInHostOrder) {
        long value = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Long.reverseBytes(beInHostOrder)
                : beInHostOrder;
        return String.format("%04x:%04x:%04x:%04x", (value >>> 48) & 0xffff, (value >>> 32) & 0xffff,
                (value >>> 16) & 0xffff, value & 0xffff);
    }

    /** A {@code __be64} as its 8 bytes in memory: {@code xxxx:xxxx:xxxx:xxxx} ({@code node_guid}). */
    static String guid(byte[] be) {
        return groups(be);
    }

    /** A 16-byte {@code union ibv_gid}: {@code fe80:0000:0000:0000:c043:e3ff:fec8:a6d0} ({@code gids/N}). */
    static String gid(byte[] raw) {
        return groups(raw);
    }

    static boolean isZero(byte[] raw) {
        for (byte b : raw) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static String groups(byte[] bytes) {
        StringBuilder s = new StringBuilder(bytes.length * 5 / 2);
        for (int i = 0; i < bytes.length; i += 2) {
            if (i > 0) {
                s.append(':');
            }
            s.append(String.format("%02x%02x", bytes[i] & 0xff, bytes[i + 1] & 0xff));
        }
        return s.toString();
    }
}
