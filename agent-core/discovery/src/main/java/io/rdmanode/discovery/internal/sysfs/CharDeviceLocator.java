// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.discovery.CharDevice;
import io.rdmanode.discovery.CharDevice.DeviceNumber;
import io.rdmanode.discovery.DiscoveryException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds an RDMA device's character devices. The uverbs and umad class devices are children of the RDMA
 * device's parent, so for a PCI device they sit under {@code <pci>/infiniband_verbs/uverbsN} and
 * {@code <pci>/infiniband_mad/umadN}: looking there reads a handful of files instead of every class entry.
 * Virtual devices (rxe) have no such parent; their entries are found by scanning the class directories
 * once per locator, matching each entry's {@code ibdev}. uverbsN's N has no relation to the device's name.
 */
final class CharDeviceLocator {

    private final SysfsRoot root;
    private Map<String, List<Path>> classIndex;

    CharDeviceLocator(SysfsRoot root) {
        this.root = root;
    }

    CharDevice uverbs(String ibdev, Optional<Path> parentDir) {
        return find("uverbs", ibdev, 0, entries(ibdev, parentDir, "infiniband_verbs"),
                "no infiniband_verbs entry with ibdev=" + ibdev + " (is ib_uverbs loaded?)");
    }

    CharDevice umad(String ibdev, int port, Optional<Path> parentDir) {
        return find("umad", ibdev, port, entries(ibdev, parentDir, "infiniband_mad"),
                "no infiniband_mad umad entry for " + ibdev + " port " + port + " (is ib_umad loaded?)");
    }

    CharDevice issm(String ibdev, int port, Optional<Path> parentDir) {
        return find("issm", ibdev, port, entries(ibdev, parentDir, "infiniband_mad"),
                "no infiniband_mad issm entry for " + ibdev + " port " + port + " (is ib_umad loaded?)");
    }

    CharDevice rdmaCm() {
        Path node = root.devInfiniband("rdma_cm");
        Optional<DeviceNumber> number = SysfsFiles.optional(root.rdmaCmClassEntry().resolve("dev"))
                .map(v -> parseDev(root.rdmaCmClassEntry().resolve("dev"), v));
        if (number.isEmpty()) {
            return CharDevice.absent("rdma_cm", node, number, "no misc device rdma_cm (is rdma_ucm loaded?)");
        }
        return withNode("rdma_cm", node, number.get());
    }

    private CharDevice find(String kind, String ibdev, int port, List<Path> entries, String missing) {
        for (Path entry : entries) {
            String name = entry.getFileName().toString();
            if (!name.startsWith(kind) || !ibdev.equals(SysfsFiles.optional(entry.resolve("ibdev")).orElse(null))) {
                continue;
            }
            if (port > 0 && SysfsFiles.optionalInt(entry.resolve("port")).orElse(-1) != port) {
                continue;
            }
            Path devFile = entry.resolve("dev");
            return withNode(kind, root.devInfiniband(name), parseDev(devFile, SysfsFiles.required(devFile)));
        }
        return CharDevice.absent(kind, root.devInfiniband(kind + "?"), Optional.empty(), missing);
    }

    private static CharDevice withNode(String kind, Path node, DeviceNumber number) {
        if (!Files.exists(node)) {
            return CharDevice.absent(kind, node, Optional.of(number), node + " does not exist (udev rule missing,"
                    + " or /dev not mounted into the agent's container?)");
        }
        return CharDevice.present(kind, node, number);
    }

    private List<Path> entries(String ibdev, Optional<Path> parentDir, String className) {
        if (parentDir.isPresent()) {
            Path dir = parentDir.get().resolve(className);
            return SysfsFiles.listFiles(dir);
        }
        return classIndex().get(className);
    }

    private synchronized Map<String, List<Path>> classIndex() {
        if (classIndex == null) {
            classIndex = new HashMap<>();
            classIndex.put("infiniband_verbs", SysfsFiles.listFiles(root.classInfinibandVerbs()));
            classIndex.put("infiniband_mad", SysfsFiles.listFiles(root.classInfinibandMad()));
        }
        return classIndex;
    }

    static DeviceNumber parseDev(Path file, String value) {
        int colon = value.indexOf(':');
        try {
            if (colon > 0) {
                return new DeviceNumber(Integer.parseInt(value.substring(0, colon)),
                        Integer.parseInt(value.substring(colon + 1)));
            }
        } catch (NumberFormatException e) {
            throw new DiscoveryException("cannot parse", file, "expected major:minor, got '" + value + "'", e);
        }
        throw new DiscoveryException("cannot parse", file, "expected major:minor, got '" + value + "'");
    }
}
