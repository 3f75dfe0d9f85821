// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PCI function address (BDF with domain) as the kernel names it under {@code /sys/bus/pci/devices},
 * e.g. {@code 0000:3b:00.1}: domain (16 bits shown as 4 hex digits), bus, device (0-31), function (0-7).
 *
 * @since 1.0
 */
public record PciAddress(int domain, int bus, int device, int function) implements Comparable<PciAddress> {

    /** {@code dddd:bb:dd.f}, lower-case hex, as in sysfs directory names. */
    public static final Pattern BDF = Pattern.compile("([0-9a-f]{4}):([0-9a-f]{2}):([01][0-9a-f])\\.([0-7])");

    public PciAddress {
        if (domain < 0 || domain > 0xffff || bus < 0 || bus > 0xff || device < 0 || device > 0x1f
                || function < 0 || function > 7) {
            throw new IllegalArgumentException("invalid PCI address " + domain + ":" + bus + ":" + device + "." + function);
        }
    }

    /** Parses a whole string such as {@code 0000:3b:00.1}; empty when it is not a BDF. */
    public static Optional<PciAddress> parse(String text) {
        Matcher m = BDF.matcher(text);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new PciAddress(Integer.parseInt(m.group(1), 16), Integer.parseInt(m.group(2), 16),
                Integer.parseInt(m.group(3), 16), Integer.parseInt(m.group(4))));
    }

    /**
     * {@code dddd:bb:dd.f} as {@link #BDF} matches it. Built by hand: it is the device ID of every Allocate and
     * {@code String.format} was about 40% of the Allocate handler's CPU (issue #23). A record has no room to cache it.
     */
    @Override
    public String toString() {
        char[] c = new char[12];
        hex(c, 0, domain, 4);
        c[4] = ':';
        hex(c, 5, bus, 2);
        c[7] = ':';
        hex(c, 8, device, 2);
        c[10] = '.';
        c[11] = (char) ('0' + function);
        return new String(c);
    }

    private static void hex(char[] c, int at, int value, int digits) {
        for (int i = digits - 1; i >= 0; i--, value >>>= 4) {
            c[at + i] = Character.forDigit(value & 0xf, 16);
        }
    }

    @Override
    public int compareTo(PciAddress o) {
        return Long.compare(key(), o.key());
    }

    private long key() {
        return ((long) domain << 24) | (bus << 16) | (device << 8) | function;
    }
}
