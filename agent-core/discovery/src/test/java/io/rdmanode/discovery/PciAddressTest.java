// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The canonical BDF text: what sysfs names, what {@code String.format("%04x:%02x:%02x.%d")} gave before. */
class PciAddressTest {

    @ParameterizedTest
    @CsvSource({
        "0,      0,    0,  0, 0000:00:00.0",
        "0,      0x3b, 0,  1, 0000:3b:00.1",
        "0x10,   0xa,  0x1, 7, 0010:0a:01.7",
        "0xabcd, 0xf0, 0x1f, 5, abcd:f0:1f.5",
        "0xffff, 0xff, 0x1f, 7, ffff:ff:1f.7",
    })
    void printsTheSysfsNameAndParsesBack(String domain, String bus, String device, int function, String text) {
        PciAddress a = new PciAddress(Integer.decode(domain), Integer.decode(bus), Integer.decode(device), function);

        assertThat(a.toString()).isEqualTo(text)
                .isEqualTo(String.format("%04x:%02x:%02x.%d", a.domain(), a.bus(), a.device(), a.function()));
        assertThat(PciAddress.parse(text)).contains(a);
    }
}
