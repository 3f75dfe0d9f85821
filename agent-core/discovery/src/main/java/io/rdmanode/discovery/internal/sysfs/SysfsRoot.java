// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where sysfs and /dev are mounted: {@code /sys} and {@code /dev} on a real host, or the two halves of an
 * unpacked recording. Every reader takes this value rather than a static path (procfs {@code FS}).
 */
public record SysfsRoot(Path sys, Path dev) {

    public SysfsRoot {
        Objects.requireNonNull(sys, "sys");
        Objects.requireNonNull(dev, "dev");
    }

    public static SysfsRoot of(String sys, String dev) {
        return new SysfsRoot(Path.of(sys), Path.of(dev));
    }

    /** {@code Documentation/ABI/stable/sysfs-class-infiniband}. */
    public Path classInfiniband() {
        return sys.resolve("class/infiniband");
    }

    public Path classInfinibandVerbs() {
        return sys.resolve("class/infiniband_verbs");
    }

    public Path classInfinibandMad() {
        return sys.resolve("class/infiniband_mad");
    }

    /** {@code rdma_cm} is a misc device (module rdma_ucm). */
    public Path rdmaCmClassEntry() {
        return sys.resolve("class/misc/rdma_cm");
    }

    /** {@code Documentation/ABI/testing/sysfs-class-net}. */
    public Path classNet() {
        return sys.resolve("class/net");
    }

    /** {@code Documentation/ABI/testing/sysfs-bus-pci}. */
    public Path busPciDevices() {
        return sys.resolve("bus/pci/devices");
    }

    public Path devInfiniband(String node) {
        return dev.resolve("infiniband").resolve(node);
    }
}
