// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetDevice;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.metrics.internal.infiniband.ScrapePlan.Family;
import io.rdmanode.metrics.internal.infiniband.ScrapePlan.Parse;
import io.rdmanode.metrics.internal.infiniband.ScrapePlan.Point;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Turns a discovery snapshot into a {@link ScrapePlan}. The counter files come from the snapshot; the port's
 * {@code state}, {@code phys_state} and {@code rate} sit beside them and are read at scrape time too, so link
 * changes show on the next scrape even between discovery rescans. Device attributes that never change while
 * the device exists ({@code board_id}, {@code hca_type}) are read here, once per revision.
 */
final class ScrapePlanner {

    private static final String P = CounterName.PREFIX;

    private final Predicate<String> devices;
    private final boolean hwCounters;
    private final Path classDir;
    private final Labels extra;
    private final Map<String, Builder> families = new TreeMap<>();
    private final Map<String, String> strings = new HashMap<>();
    private HostSnapshot snapshot;

    /** @param sysfsRoot where discovery reads sysfs ({@code /sys}, or a recorded host's {@code sys}) */
    ScrapePlanner(Predicate<String> devices, boolean hwCounters, Path sysfsRoot) {
        this(devices, hwCounters, sysfsRoot, Labels.EMPTY);
    }

    /** @param extra labels every series gets besides {@code device} (and {@code port}): a pod's identity */
    ScrapePlanner(Predicate<String> devices, boolean hwCounters, Path sysfsRoot, Labels extra) {
        this.devices = devices;
        this.hwCounters = hwCounters;
        this.classDir = sysfsRoot.resolve("class/infiniband");
        this.extra = extra;
    }

    ScrapePlan plan(HostSnapshot snapshot) {
        families.clear();
        strings.clear();
        this.snapshot = snapshot;
        for (RdmaDevice d : snapshot.devices()) {
            if (devices.test(d.name())) {
                device(d);
            }
        }
        List<Family> out = new ArrayList<>(families.size());
        families.values().forEach(b -> out.add(new Family(b.metadata, b.kind, List.copyOf(b.points))));
        return new ScrapePlan(snapshot.revision(), out);
    }

    private void device(RdmaDevice d) {
        Path dir = deviceDir(d);
        String boardId = SysfsValues.readLine(dir.resolve("board_id").toFile());
        String hcaType = SysfsValues.readLine(dir.resolve("hca_type").toFile());
        info(P + "info", "Non-numeric data from /sys/class/infiniband/<device>, value is always 1.",
                Labels.of("device", d.name(), "board_id", orEmpty(boardId),
                        "firmware_version", d.fwVersion().orElse(""), "hca_type", orEmpty(hcaType)).merge(extra));
        for (RdmaPort port : d.ports()) {
            port(d, dir, port);
        }
        if (hwCounters) {
            Labels labels = Labels.of("device", d.name()).merge(extra);
            for (Path f : d.hwCounterFiles()) {
                counterFile(CounterName.ofDeviceHwCounter(f.getFileName().toString()), labels, f);
            }
        }
    }

    /**
     * {@code <class/infiniband>/<dev>}: beside its counter files when it has any, else under the sysfs root
     * discovery reads. An HCA without counter files still has {@code board_id} and {@code hca_type}.
     */
    private Path deviceDir(RdmaDevice d) {
        Optional<Path> fromPort = d.ports().stream().map(ScrapePlanner::portDir).flatMap(Optional::stream)
                .findFirst().map(port -> port.getParent().getParent());
        if (fromPort.isPresent()) {
            return fromPort.get();
        }
        return d.hwCounterFiles().isEmpty() ? classDir.resolve(d.name())
                : d.hwCounterFiles().get(0).getParent().getParent();
    }

    private void port(RdmaDevice device, Path deviceDir, RdmaPort port) {
        Labels labels = Labels.of("device", device.name(), "port", Integer.toString(port.number())).merge(extra);
        info(P + "port_info", "Link layer and netdev of an RDMA port, value is always 1.",
                labels.add("link_layer", port.linkLayer().name().toLowerCase(Locale.ROOT))
                        .add("netdev", port.netdev().or(() -> ipoib(device.name(), port)).orElse("")));
        Optional<Path> dir = portDir(port);
        gauge(P + "state_id", "State of the InfiniBand port (0: no change, 1: down, 2: init, 3: armed, 4: active,"
                + " 5: act defer)", labels, dir, "state", Parse.CODED,
                port.state() == RdmaPort.PortState.UNKNOWN ? null : (double) port.state().ordinal());
        gauge(P + "physical_state_id", "Physical state of the InfiniBand port (0: no change, 1: sleep,"
                + " 2: polling, 3: disable, 4: shift, 5: link up, 6: link error recover, 7: phytest)", labels, dir,
                "phys_state", Parse.CODED,
                port.physState() == RdmaPort.PhysState.UNKNOWN ? null : (double) port.physState().ordinal());
        gauge(P + "rate_bytes_per_second", "Maximum signal transfer rate", labels, dir, "rate", Parse.RATE,
                port.rate().map(SysfsValues::parseRate).filter(v -> v.isPresent()).map(v -> v.getAsDouble())
                        .orElse(null));
        for (Path f : port.counterFiles()) {
            counterFile(CounterName.ofCounter(f.getFileName().toString()), labels, f);
        }
        Path ext = dir.orElse(deviceDir.resolve("ports/" + port.number())).resolve("counters_ext");
        for (Path f : CounterFiles.list(ext)) {
            counterFile(CounterName.ofCounterExt(f.getFileName().toString()), labels, f);
        }
        if (hwCounters) {
            for (Path f : port.hwCounterFiles()) {
                counterFile(CounterName.ofHwCounter(f.getFileName().toString()), labels, f);
            }
        }
    }

    /**
     * The IPoIB netdev of an InfiniBand port, which discovery lists among the netdevs but not on the port: the
     * one on the same RDMA device whose 20-byte hardware address ends with the port's GID 0 (QPN, then GID:
     * {@code drivers/infiniband/ulp/ipoib}); of several (P_Key children) the parent, first by name. A device
     * with one InfiniBand port and one IPoIB netdev needs no GID.
     */
    private Optional<String> ipoib(String device, RdmaPort port) {
        if (port.linkLayer() != RdmaPort.LinkLayer.INFINIBAND) {
            return Optional.empty();
        }
        List<NetDevice> candidates = snapshot.netDevices().stream()
                .filter(n -> n.linkType() == NetDevice.LinkType.INFINIBAND)
                .filter(n -> n.rdmaDevice().filter(device::equals).isPresent())
                .sorted(Comparator.comparing(NetDevice::name)).toList();
        Optional<String> gid = port.gids().stream().filter(g -> g.index() == 0).findFirst()
                .map(g -> hex(g.value()));
        if (gid.isPresent()) {
            Optional<String> byGid = candidates.stream()
                    .filter(n -> n.mac().map(ScrapePlanner::hex).filter(m -> m.endsWith(gid.get())).isPresent())
                    .map(NetDevice::name).findFirst();
            if (byGid.isPresent()) {
                return byGid;
            }
        }
        long ibPorts = snapshot.device(device).stream().flatMap(d -> d.ports().stream())
                .filter(p -> p.linkLayer() == RdmaPort.LinkLayer.INFINIBAND).count();
        return ibPorts == 1 && !candidates.isEmpty() ? Optional.of(candidates.get(0).name()) : Optional.empty();
    }

    private static String hex(String s) {
        return s.replace(":", "").toLowerCase(Locale.ROOT);
    }

    /** {@code <class/infiniband/dev>/ports/N}, from the snapshot's counter file paths. */
    private static Optional<Path> portDir(RdmaPort port) {
        List<Path> files = !port.counterFiles().isEmpty() ? port.counterFiles() : port.hwCounterFiles();
        return files.isEmpty() ? Optional.empty() : Optional.of(files.get(0).getParent().getParent());
    }

    private void counterFile(CounterName c, Labels labels, Path file) {
        builder(c.name(), c.help(), c.gauge() ? Family.Kind.GAUGE : Family.Kind.COUNTER, c.bytes(), c.gauge()
                && c.suffix().endsWith("_seconds"))
                .add(new Point(labels, shared(file.getParent().toString()), shared(file.getFileName().toString()),
                        Parse.COUNTER, c.scale(), 0));
    }

    /** Read from {@code dir/file} at scrape time when the port directory is known, else the snapshot's value. */
    private void gauge(String name, String help, Labels labels, Optional<Path> dir, String file, Parse parse,
                       Double snapshotValue) {
        Builder b = builder(name, help, Family.Kind.GAUGE, false, false);
        if (dir.isPresent()) {
            b.add(new Point(labels, shared(dir.get().toString()), shared(file), parse, 1, 0));
        } else if (snapshotValue != null) {
            b.add(new Point(labels, null, null, parse, 1, snapshotValue));
        }
    }

    private void info(String name, String help, Labels labels) {
        builder(name.substring(0, name.length() - "_info".length()), help, Family.Kind.INFO, false, false)
                .add(new Point(labels, null, null, Parse.COUNTER, 1, 1));
    }

    private Builder builder(String name, String help, Family.Kind kind, boolean bytes, boolean seconds) {
        return families.computeIfAbsent(name, n -> new Builder(Family.metadata(n, help, bytes, seconds), kind));
    }

    /** One string per distinct directory or file name across the plan. */
    private String shared(String s) {
        String known = strings.putIfAbsent(s, s);
        return known != null ? known : s;
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    private static final class Builder {
        final MetricMetadata metadata;
        final Family.Kind kind;
        final List<Point> points = new ArrayList<>();
        final Set<Labels> seen = new HashSet<>();

        Builder(MetricMetadata metadata, Family.Kind kind) {
            this.metadata = metadata;
            this.kind = kind;
        }

        /** Two files mapping to one series (e.g. {@code Foo} and {@code foo}): the first one counts. */
        void add(Point p) {
            if (seen.add(p.labels())) {
                points.add(p);
            }
        }
    }
}
