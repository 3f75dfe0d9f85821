// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.rdmanode.discovery.PciAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PCIe root complex of a function, as {@code resource.kubernetes.io/pcieRoot} names it ({@code pci0000:3a}):
 * the first component of the function's device path, read from the {@code <sysfs>/bus/pci/devices/<bdf>} link
 * ({@code ../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2}). Claims align a GPU and a NIC on it.
 */
final class PcieRoots {

    private static final Pattern ROOT = Pattern.compile("(?:^|/)(pci[0-9a-f]{4}:[0-9a-f]{2})(?:/|$)");

    private final Path sysfs;

    PcieRoots(Path sysfs) {
        this.sysfs = sysfs;
    }

    /** Empty when the link is missing or names no root (a virtual bus). */
    Optional<String> of(PciAddress address) {
        try {
            Path target = Files.readSymbolicLink(sysfs.resolve("bus/pci/devices").resolve(address.toString()));
            Matcher m = ROOT.matcher(target.toString());
            return m.find() ? Optional.of(m.group(1)) : Optional.empty();
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }
}
