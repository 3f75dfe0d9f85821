// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.testing.SnapshotPublisher;
import io.rdmanode.discovery.testing.SysfsTree;
import io.rdmanode.agent.Ttar;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Discovery over a recorded or generated host in a directory, read by the real sysfs backend. Tests change
 * the tree as the kernel would (a PF's {@code sriov_numvfs} lowered and raised again, a VF's RDMA device moved
 * into a pod netns and back, a port down) and call {@link #rescan()}.
 */
final class SriovHost implements RdmaDiscovery {

    private final Path dir;
    private final Path stash;
    private final SysfsTree source;
    private volatile NetnsMode mode = NetnsMode.of(NetnsMode.Mode.SHARED);
    private final SnapshotPublisher published;

    private SriovHost(Path dir) {
        this.dir = real(dir);
        this.stash = this.dir.resolve("stash");
        this.source = SysfsTree.of(this.dir, () -> mode);
        this.published = new SnapshotPublisher(source.scan());
    }

    /** The recorded ConnectX-5: PF0 0000:3b:00.0 (NUMA 0), PF1 0000:86:00.0 (NUMA 1), 8 VFs each. */
    static SriovHost recorded(Path dir) {
        try {
            Ttar.unpack(Path.of(SriovHost.class.getResource("/fixtures/sysfs/cx5-roce-sriov.ttar").toURI()), dir);
            return new SriovHost(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** The generated host: {@code pfs} ConnectX-5 PFs with {@code vfsPerPf} VFs each. */
    static SriovHost generated(Path dir, int pfs, int vfsPerPf) {
        SysfsTree.generateSriovHost(dir, pfs, vfsPerPf);
        return new SriovHost(dir);
    }

    Path dir() {
        return dir;
    }

    Path devRoot() {
        return dir.resolve("dev");
    }

    /** The device-plugin layer with the tree's {@code dev/} as the node's /dev: host paths stay in the tree. */
    DevicePluginLayer layer() {
        return io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(new LayerSettings(new DevicePaths(devRoot()), List.of()));
    }

    /** The agent's layer: its allocation ledger in {@code ledgerFile}, reconciled with {@code kubelet}. */
    DevicePluginLayer layer(Path ledgerFile, io.rdmanode.kubelet.PodDevices kubelet) {
        return io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(
                new LayerSettings(new DevicePaths(devRoot()), List.of()), ledgerFile, kubelet);
    }

    /** Rebinds a VF to vfio-pci: its driver link changes, its netdev and RDMA device go. */
    void bindVfio(String vf, String ibdev, String netdev) {
        Path fn = pciDir(vf);
        try {
            Files.createDirectories(dir.resolve("sys/bus/pci/drivers/vfio-pci"));
            Files.delete(fn.resolve("driver"));
            Files.createSymbolicLink(fn.resolve("driver"), fn.relativize(dir.resolve("sys/bus/pci/drivers/vfio-pci")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        move(dir.resolve("sys/class/infiniband/" + ibdev), stash.resolve("vfio/" + ibdev + "/class"));
        move(fn.resolve("infiniband/" + ibdev), stash.resolve("vfio/" + ibdev + "/dev"));
        move(dir.resolve("sys/class/net/" + netdev), stash.resolve("vfio/" + netdev + "/class"));
        move(fn.resolve("net/" + netdev), stash.resolve("vfio/" + netdev + "/dev"));
    }

    void netnsMode(NetnsMode.Mode next) {
        mode = NetnsMode.of(next);
    }

    void portState(String device, int port, String state) {
        write(dir.resolve("sys/class/infiniband/" + device + "/ports/" + port + "/state"), state);
    }

    /**
     * Lowers {@code sriov_numvfs} of {@code pf} to {@code count} (the VFs above go: their PCI functions, RDMA
     * devices, netdevs and class entries), or raises it back to VFs removed before.
     */
    List<PciAddress> numVfs(String pf, int count) {
        Path pfDir = pciDir(pf);
        List<PciAddress> changed = new ArrayList<>(List.of(pci(pf)));
        int now = Integer.parseInt(read(pfDir.resolve("sriov_numvfs")));
        List<Path> going = new ArrayList<>();
        for (int i = now - 1; i >= count; i--) {
            going.add(real(pfDir.resolve("virtfn" + i)));
        }
        for (Path link : linksInto(going)) {
            Path vf = going.stream().filter(v -> target(link).startsWith(v)).findFirst().orElseThrow();
            move(link, stash.resolve(vf.getFileName().toString()).resolve(dir.relativize(link)));
        }
        for (Path vf : going) {
            move(vf, stash.resolve(vf.getFileName().toString()).resolve(dir.relativize(vf)));
            changed.add(pci(vf.getFileName().toString()));
        }
        for (int i = now; i < count; i++) {
            String bdf = stashedVf(i, pfDir);
            restore(bdf);
            changed.add(pci(bdf));
        }
        write(pfDir.resolve("sriov_numvfs"), Integer.toString(count));
        return changed;
    }

    /** The RDMA CNI moved the VF's RDMA device into a pod netns: it leaves the host's sysfs. */
    void moveRdmaToPod(String vf, String ibdev) {
        Path devDir = pciDir(vf).resolve("infiniband/" + ibdev);
        move(dir.resolve("sys/class/infiniband/" + ibdev), stash.resolve("pod/" + ibdev + "/class"));
        move(devDir, stash.resolve("pod/" + ibdev + "/dev"));
    }

    /** The pod is gone: the kernel moves the RDMA device back to the host's namespace. */
    void returnRdmaFromPod(String vf, String ibdev) {
        move(stash.resolve("pod/" + ibdev + "/dev"), pciDir(vf).resolve("infiniband/" + ibdev));
        move(stash.resolve("pod/" + ibdev + "/class"), dir.resolve("sys/class/infiniband/" + ibdev));
    }

    private Path pciDir(String bdf) {
        return real(dir.resolve("sys/bus/pci/devices/" + bdf));
    }

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Symlinks outside the {@code targets} that point into one of them (bus, class and virtfn entries). */
    private List<Path> linksInto(List<Path> targets) {
        try (Stream<Path> all = Files.walk(dir.resolve("sys"))) {
            return all.filter(Files::isSymbolicLink)
                    .filter(l -> targets.stream().noneMatch(l::startsWith))
                    .filter(l -> targets.stream().anyMatch(t -> target(l).startsWith(t))).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path target(Path link) {
        try {
            return link.getParent().resolve(Files.readSymbolicLink(link)).normalize();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String stashedVf(int index, Path pfDir) {
        Path stashDir = stash;
        try (Stream<Path> all = Files.walk(stashDir, 1)) {
            for (Path bdfDir : all.filter(p -> !p.equals(stashDir)).toList()) {
                Path virtfn = bdfDir.resolve(dir.relativize(pfDir)).resolve("virtfn" + index);
                if (Files.isSymbolicLink(virtfn)) {
                    return bdfDir.getFileName().toString();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("VF " + index + " of " + pfDir + " was never removed");
    }

    private void restore(String bdf) {
        Path from = stash.resolve(bdf);
        try (Stream<Path> all = Files.walk(from)) {
            List<Path> entries = all.filter(p -> Files.isSymbolicLink(p) || Files.isRegularFile(p)).toList();
            for (Path p : entries) {
                move(p, dir.resolve(from.relativize(p)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (Stream<Path> left = Files.walk(from)) {              // the emptied directories
            for (Path p : left.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void move(Path from, Path to) {
        try {
            Files.createDirectories(to.getParent());
            Files.move(from, to);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path f) {
        try {
            return Files.readString(f).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path f, String content) {
        try {
            Files.writeString(f, content + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static PciAddress pci(String bdf) {
        return PciAddress.parse(bdf).orElseThrow();
    }

    @Override
    public HostSnapshot snapshot() {
        return published.snapshot();
    }

    @Override
    public HostSnapshot rescan() {
        return publish(source.scan());
    }

    /** What discovery does on kernel events: an incremental scan of the functions they named. */
    HostSnapshot update(List<PciAddress> functions) {
        return publish(source.update(functions));
    }

    private HostSnapshot publish(HostSnapshot next) {
        return published.publish(next);
    }

    @Override
    public Optional<RdmaDevice> readDevice(Path sys, String name) {
        return source.readDevice(sys, name);
    }

    @Override
    public io.rdmanode.discovery.RdmaCounters counters() {
        return source.counters();
    }

    @Override
    public io.rdmanode.discovery.RdmaCounters counters(Path sys) {
        return source.counters(sys);
    }

    @Override
    public void addListener(RdmaTopologyListener listener) {
        published.addListener(listener);
    }

    @Override
    public void removeListener(RdmaTopologyListener listener) {
        published.removeListener(listener);
    }
}
