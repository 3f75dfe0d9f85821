// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaCounter;
import io.rdmanode.discovery.RdmaCounter.Kind;
import io.rdmanode.discovery.RdmaCounters;
import io.rdmanode.discovery.RdmaCounters.DeviceAttribute;
import io.rdmanode.discovery.NetDevice;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.metrics.internal.infiniband.ScrapePlan.Family;
import io.rdmanode.metrics.internal.infiniband.ScrapePlan.Point;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a discovery snapshot into a {@link ScrapePlan}. The counter names come from the snapshot (and, for
 * {@code counters_ext/}, from discovery's listing); the port's {@code state}, {@code phys_state} and
 * {@code rate} are read at scrape time too, so link changes show on the next scrape even between discovery
 * rescans. Device attributes that never change while the device exists ({@code board_id}, {@code hca_type}) are
 * asked for here, once per revision. Every value comes through discovery's {@link RdmaCounters}.
 */
final class ScrapePlanner {

    private static final String P = CounterName.PREFIX;
    /** procfs: a rate's Gb/s times 125,000,000 is its bytes per second. */
    private static final double BYTES_PER_GBIT = 125_000_000d;
    /** The snapshot's {@code rate} text, {@code "100 Gb/sec (4X EDR)"}, as discovery reads the file. */
    private static final Pattern RATE = Pattern.compile("([0-9]+(?:\\.[0-9]+)?) Gb/sec.*");

    private final Predicate<String> devices;
    private final boolean hwCounters;
    private final RdmaCounters counters;
    private final Labels extra;
    private final Map<String, Builder> families = new TreeMap<>();
    private final List<RdmaCounter> reads = new ArrayList<>();
    /** One exposition text per label set: the series of a port share theirs. */
    private final Map<Labels, byte[]> labelTexts = new IdentityHashMap<>();
    private final int slices;
    private final Executor executor;
    private HostSnapshot snapshot;

    /** @param counters discovery's reader of the tree the snapshot comes from */
    ScrapePlanner(Predicate<String> devices, boolean hwCounters, RdmaCounters counters) {
        this(devices, hwCounters, counters, Labels.EMPTY, 1, null);
    }

    /** @param extra labels every series gets besides {@code device} (and {@code port}): a pod's identity */
    ScrapePlanner(Predicate<String> devices, boolean hwCounters, RdmaCounters counters, Labels extra) {
        this(devices, hwCounters, counters, extra, 1, null);
    }

    /** @param slices, executor how the values are read in parallel ({@link ValueReader}); null: by the caller */
    ScrapePlanner(Predicate<String> devices, boolean hwCounters, RdmaCounters counters, Labels extra, int slices,
                  Executor executor) {
        this.devices = devices;
        this.hwCounters = hwCounters;
        this.counters = counters;
        this.extra = extra;
        this.slices = slices;
        this.executor = executor;
    }

    ScrapePlan plan(HostSnapshot snapshot) {
        families.clear();
        reads.clear();
        labelTexts.clear();
        this.snapshot = snapshot;
        for (RdmaDevice d : snapshot.devices()) {
            if (devices.test(d.name())) {
                device(d);
            }
        }
        List<Family> out = new ArrayList<>(families.size());
        families.values().forEach(b -> out.add(Family.of(b.metadata, b.kind, List.copyOf(b.points))));
        return new ScrapePlan(snapshot.revision(), out, ValueReader.of(counters, reads, slices, executor));
    }

    private void device(RdmaDevice d) {
        String boardId = counters.deviceAttribute(d.name(), DeviceAttribute.BOARD_ID).orElse("");
        String hcaType = counters.deviceAttribute(d.name(), DeviceAttribute.HCA_TYPE).orElse("");
        info(P + "info", "Non-numeric data from /sys/class/infiniband/<device>, value is always 1.",
                Labels.of("device", d.name(), "board_id", boardId,
                        "firmware_version", d.fwVersion().orElse(""), "hca_type", hcaType).merge(extra));
        for (RdmaPort port : d.ports()) {
            port(d, port);
        }
        if (hwCounters) {
            Labels labels = Labels.of("device", d.name()).merge(extra);
            for (Path f : d.hwCounterFiles()) {
                String name = f.getFileName().toString();
                counter(CounterName.ofDeviceHwCounter(name), labels, new RdmaCounter(d.name(), 0, Kind.HW_COUNTER, name));
            }
        }
    }

    private void port(RdmaDevice device, RdmaPort port) {
        String dev = device.name();
        int n = port.number();
        Labels labels = Labels.of("device", dev, "port", Integer.toString(n)).merge(extra);
        info(P + "port_info", "Link layer and netdev of an RDMA port, value is always 1.",
                labels.add("link_layer", port.linkLayer().name().toLowerCase(Locale.ROOT))
                        .add("netdev", port.netdev().or(() -> ipoib(dev, port)).orElse("")));
        // Read at scrape time where the port has counter files (its directory is known to be readable), else
        // the snapshot's value: a port of a device without counters keeps what discovery last saw.
        boolean live = !port.counterFiles().isEmpty() || !port.hwCounterFiles().isEmpty();
        gauge(P + "state_id", "State of the InfiniBand port (0: no change, 1: down, 2: init, 3: armed, 4: active,"
                + " 5: act defer)", labels, live, RdmaCounter.link(dev, n, Kind.STATE), 1,
                port.state() == RdmaPort.PortState.UNKNOWN ? null : (double) port.state().ordinal());
        gauge(P + "physical_state_id", "Physical state of the InfiniBand port (0: no change, 1: sleep,"
                + " 2: polling, 3: disable, 4: shift, 5: link up, 6: link error recover, 7: phytest)", labels, live,
                RdmaCounter.link(dev, n, Kind.PHYS_STATE), 1,
                port.physState() == RdmaPort.PhysState.UNKNOWN ? null : (double) port.physState().ordinal());
        gauge(P + "rate_bytes_per_second", "Maximum signal transfer rate", labels, live,
                RdmaCounter.link(dev, n, Kind.RATE), BYTES_PER_GBIT,
                port.rate().map(RATE::matcher).filter(Matcher::matches)
                        .map(m -> Double.parseDouble(m.group(1)) * BYTES_PER_GBIT).orElse(null));
        for (Path f : port.counterFiles()) {
            String name = f.getFileName().toString();
            counter(CounterName.ofCounter(name), labels, new RdmaCounter(dev, n, Kind.COUNTER, name));
        }
        for (String name : counters.counterNames(dev, n, Kind.COUNTER_EXT)) {
            counter(CounterName.ofCounterExt(name), labels, new RdmaCounter(dev, n, Kind.COUNTER_EXT, name));
        }
        if (hwCounters) {
            for (Path f : port.hwCounterFiles()) {
                String name = f.getFileName().toString();
                counter(CounterName.ofHwCounter(name), labels, new RdmaCounter(dev, n, Kind.HW_COUNTER, name));
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

    private void counter(CounterName c, Labels labels, RdmaCounter value) {
        Builder b = builder(c.name(), c.help(), c.gauge() ? Family.Kind.GAUGE : Family.Kind.COUNTER, c.bytes(),
                c.gauge() && c.suffix().endsWith("_seconds"));
        b.add(new Point(labels, text(labels), reads.size(), c.scale(), 0), value);
    }

    /** Read at scrape time when {@code live}, else the snapshot's value (none: no point). */
    private void gauge(String name, String help, Labels labels, boolean live, RdmaCounter value, double scale,
                       Double snapshotValue) {
        Builder b = builder(name, help, Family.Kind.GAUGE, false, false);
        if (live) {
            b.add(new Point(labels, text(labels), reads.size(), scale, 0), value);
        } else if (snapshotValue != null) {
            b.add(new Point(labels, text(labels), -1, 1, snapshotValue), null);
        }
    }

    private void info(String name, String help, Labels labels) {
        builder(name.substring(0, name.length() - "_info".length()), help, Family.Kind.INFO, false, false)
                .add(new Point(labels, text(labels), -1, 1, 1), null);
    }

    private byte[] text(Labels labels) {
        return labelTexts.computeIfAbsent(labels, ExpositionText::labels);
    }

    private Builder builder(String name, String help, Family.Kind kind, boolean bytes, boolean seconds) {
        return families.computeIfAbsent(name, n -> new Builder(Family.metadata(n, help, bytes, seconds), kind));
    }

    private final class Builder {
        final MetricMetadata metadata;
        final Family.Kind kind;
        final List<Point> points = new ArrayList<>();
        final Set<Labels> seen = new HashSet<>();

        Builder(MetricMetadata metadata, Family.Kind kind) {
            this.metadata = metadata;
            this.kind = kind;
        }

        /** Two files mapping to one series (e.g. {@code Foo} and {@code foo}): the first one counts. */
        void add(Point p, RdmaCounter value) {
            if (seen.add(p.labels())) {
                points.add(p);
                if (value != null) {
                    reads.add(value);
                }
            }
        }
    }
}
