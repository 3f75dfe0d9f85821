// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.testing;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.discovery.RdmaCounters;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.internal.sysfs.FixtureHosts;
import io.rdmanode.discovery.internal.sysfs.InfinibandClassReader;
import io.rdmanode.discovery.internal.sysfs.InfinibandCounters;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Discovery's real sysfs backend over a host tree in a directory ({@code dir/sys}, {@code dir/dev}), in the
 * API's terms only, for other modules' tests (through discovery's test-jar): they scan recorded or generated
 * hosts as the agent would with {@code sysfsRoot} pointing there, without reaching into discovery's internals.
 */
public final class SysfsTree {

    private final Path dir;
    private final SysfsTopologySource source;

    private SysfsTree(Path dir, Supplier<NetnsMode> netnsMode) {
        this.dir = dir;
        this.source = new SysfsTopologySource(new SysfsRoot(dir.resolve("sys"), dir.resolve("dev")), netnsMode);
    }

    /** The tree under {@code dir}, read with the RDMA netns mode {@code netnsMode} answers at each scan. */
    public static SysfsTree of(Path dir, Supplier<NetnsMode> netnsMode) {
        return new SysfsTree(dir, netnsMode);
    }

    /**
     * Writes the generated scale host into {@code dir}: {@code pfs} ConnectX-5 PFs with {@code vfsPerPf} VFs
     * each, every VF with its RDMA device and netdev.
     */
    public static void generateSriovHost(Path dir, int pfs, int vfsPerPf) {
        FixtureHosts.scale(dir, pfs, vfsPerPf);
    }

    public Path dir() {
        return dir;
    }

    /** A full scan, as discovery does at start and on its rescan interval. */
    public HostSnapshot scan() {
        return source.scan();
    }

    /** What discovery does on kernel events: an incremental scan of the PCI functions they named. */
    public HostSnapshot update(List<PciAddress> functions) {
        ScanHints hints = new ScanHints();
        functions.forEach(hints::pciFunction);
        return source.update(hints);
    }

    /** {@code RdmaDiscovery.counters()}: the values of this tree's devices, read at call time. */
    public RdmaCounters counters() {
        return new InfinibandCounters(dir.resolve("sys"));
    }

    /** {@code RdmaDiscovery.counters(sys)}: the values in the sysfs tree {@code sys} (a pod's view). */
    public RdmaCounters counters(Path sys) {
        return new InfinibandCounters(sys);
    }

    /** {@code RdmaDiscovery.readDevice}: one device from the sysfs tree {@code sys} (a pod's view), devices here. */
    public Optional<RdmaDevice> readDevice(Path sys, String name) {
        return InfinibandClassReader.readIfPresent(new SysfsRoot(sys, dir.resolve("dev")), name);
    }
}
