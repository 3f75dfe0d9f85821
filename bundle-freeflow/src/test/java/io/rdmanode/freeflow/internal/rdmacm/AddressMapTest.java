// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AddressMapTest {

    private static ByteBuffer sockaddrIn(int off, int size, int port, int... addr) {
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(off, (short) 2).put(off + 2, (byte) (port >> 8)).put(off + 3, (byte) port);
        for (int i = 0; i < 4; i++) {
            b.put(off + 4 + i, (byte) addr[i]);
        }
        return b;
    }

    @Test
    void an_overlay_address_becomes_the_host_one_and_the_port_stays() {
        AddressMap m = AddressMap.parse(new String[] {"10.44.0.1=192.168.2.13"});
        ByteBuffer k = sockaddrIn(16, 48, 7174, 10, 44, 0, 1);
        assertThat(m.rewrite(k, 16, 28, -1)).isTrue();
        assertThat(HexFormat.of().formatHex(k.array(), 16, 24)).isEqualTo("02001c06c0a8020d");
    }

    @Test
    void an_ipv6_host_address_takes_the_whole_sockaddr_in6_and_its_size() {
        AddressMap m = AddressMap.parse(new String[] {"10.44.0.1=fe80::1%3"});
        ByteBuffer k = sockaddrIn(24, 280, 7174, 10, 44, 0, 1).putShort(16, (short) 16);
        assertThat(m.rewrite(k, 24, 128, 16)).isTrue();
        assertThat(HexFormat.of().formatHex(k.array(), 24, 52))
                .isEqualTo("0a00" + "1c06" + "00000000" + "fe800000000000000000000000000001" + "03000000");
        assertThat(k.getShort(16)).as("src_size").isEqualTo((short) 28);
    }

    @Test
    void an_ipv4_mapped_ipv6_overlay_address_is_mapped_too() {
        AddressMap m = AddressMap.parse(new String[] {"10.44.0.1=fe80::1%3"});
        ByteBuffer k = ByteBuffer.allocate(48).order(ByteOrder.LITTLE_ENDIAN).putShort(16, (short) 10)
                .put(18, (byte) 0x1c).put(19, (byte) 0x07)
                .put(34, (byte) 0xff).put(35, (byte) 0xff).put(36, new byte[] {10, 44, 0, 1});
        assertThat(m.rewrite(k, 16, 28, -1)).isTrue();
        assertThat(HexFormat.of().formatHex(k.array(), 16, 44))
                .isEqualTo("0a00" + "1c07" + "00000000" + "fe800000000000000000000000000001" + "03000000");
        ByteBuffer other = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN).putShort(0, (short) 10)
                .put(10, (byte) 0xff).put(11, (byte) 0xff).put(12, new byte[] {10, 44, 0, 1}).put(0 + 8, (byte) 1);
        assertThat(m.rewrite(other, 0, 28, -1)).as("not ::ffff:0:0/96").isFalse();
    }

    @Test
    void addresses_not_in_the_map_and_other_families_pass_unchanged() {
        AddressMap m = AddressMap.parse(new String[] {"10.44.0.1=192.168.2.13"});
        ByteBuffer other = sockaddrIn(0, 28, 1, 10, 44, 0, 2);
        assertThat(m.rewrite(other, 0, 28, -1)).isFalse();
        ByteBuffer v6 = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN).putShort(0, (short) 10);
        assertThat(m.rewrite(v6, 0, 28, -1)).isFalse();
        assertThat(AddressMap.EMPTY.rewrite(sockaddrIn(0, 28, 1, 10, 44, 0, 1), 0, 28, -1)).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "10.44.0.1                     | expected overlay=host",
        "10.44.0.1=1.2.3.4=5           | expected overlay=host",
        "myhost=1.2.3.4                | overlay 'myhost' is not an IPv4 address",
        "10.44.0.300=1.2.3.4           | '10.44.0.300' is not an IPv4 address",
        "fe80::1=1.2.3.4               | overlay 'fe80::1' is not an IPv4 address",
        "10.44.0.1=example.org         | host 'example.org' is not an IPv4 or IPv6 address",
        "10.44.0.1=fe80::1%no-such-if0 | no network interface 'no-such-if0' on this host",
    })
    void a_bad_entry_is_refused_with_its_text(String entry, String message) {
        assertThatThrownBy(() -> AddressMap.parse(new String[] {entry}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @Test
    void an_overlay_address_mapped_twice_is_refused() {
        assertThatThrownBy(() -> AddressMap.parse(new String[] {"10.44.0.1=1.2.3.4", "10.44.0.1=1.2.3.5"}))
                .hasMessageContaining("mapped twice");
    }
}
