// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** GUIDs and GIDs as {@code sysfs-class-infiniband} prints them. */
class IbvFormatTest {

    @Test
    void formatsGidsAndGuidsLikeSysfs() {
        byte[] gid = {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, (byte) 0xc0, 0x43, (byte) 0xe3, (byte) 0xff,
                (byte) 0xfe, (byte) 0xc8, (byte) 0xa6, (byte) 0xd0};
        assertThat(IbvFormat.gid(gid)).isEqualTo("fe80:0000:0000:0000:c043:e3ff:fec8:a6d0");
        assertThat(IbvFormat.isZero(gid)).isFalse();
        assertThat(IbvFormat.isZero(new byte[16])).isTrue();
        byte[] guid = {(byte) 0xc0, 0x43, (byte) 0xe3, (byte) 0xff, (byte) 0xfe, (byte) 0xc8, (byte) 0xa6, (byte) 0xd0};
        assertThat(IbvFormat.guid(guid)).isEqualTo("c043:e3ff:fec8:a6d0");
    }

    @Test
    void readsABigEndianGuidReturnedInARegister() {
        long inRegister = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 0xd0a6c8feffe343c0L
                : 0xc043e3fffec8a6d0L;
        assertThat(IbvFormat.guid(inRegister)).isEqualTo("c043:e3ff:fec8:a6d0");
    }
}
