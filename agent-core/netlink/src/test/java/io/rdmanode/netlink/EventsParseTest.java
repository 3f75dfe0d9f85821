// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EventsParseTest {

    @Test
    void ueventKeysAndValues() {
        byte[] b = "add@/devices/virtual/net/veth0\0ACTION=add\0DEVPATH=/devices/virtual/net/veth0\0SUBSYSTEM=net\0INTERFACE=veth0\0"
                .getBytes(StandardCharsets.UTF_8);
        Uevent u = Uevent.parse(b, b.length);
        assertThat(u.action()).isEqualTo("add");
        assertThat(u.subsystem()).isEqualTo("net");
        assertThat(u.devpath()).isEqualTo("/devices/virtual/net/veth0");
        assertThat(u.get("INTERFACE", "")).isEqualTo("veth0");
    }

    @Test
    void rtnetlinkNewAndDelLink() {
        ByteBuffer b = ByteBuffer.allocate(2 * 44).order(ByteOrder.nativeOrder());
        for (int type : new int[] {16, 17}) {
            b.putInt(44).putShort((short) type).putShort((short) 0).putInt(0).putInt(0); // nlmsghdr
            b.put((byte) 0).put((byte) 0).putShort((short) 1).putInt(7).putInt(0).putInt(0); // ifinfomsg
            b.putShort((short) 10).putShort((short) 3).put("eth9\0\0".getBytes(StandardCharsets.US_ASCII)); // IFLA_IFNAME
            b.putShort((short) 0); // pad to 44
        }
        assertThat(LinkEvent.parse(b.array(), 88)).containsExactly(new LinkEvent(LinkEvent.Kind.NEW, 7, "eth9"),
                new LinkEvent(LinkEvent.Kind.DEL, 7, "eth9"));
    }
}
