// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import io.rdmanode.discovery.Gid;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.Problem;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.discovery.internal.events.DiscoveryEngine;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import io.rdmanode.verbs.IbvDevice;
import io.rdmanode.verbs.IbvDeviceListing;
import io.rdmanode.verbs.IbvPort;
import io.rdmanode.verbs.RdmaVerbs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs inside the Soft-RoCE testbed VM ({@link VerbsSoftRoceIT} starts it) and prints {@code key=value} lines:
 * the verbs backend before any RDMA device exists, then (after {@code rxe-setup}) both backends' view of every
 * device, the raw verbs attributes, the {@code ibv_query_gid} fallback's GIDs, and the number of uverbs file
 * descriptors left open after repeated scans. The host side asserts; this side only reports.
 */
public final class VerbsVmProbe {

    private VerbsVmProbe() {
    }

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        SysfsTopologySource sysfs = new SysfsTopologySource(SysfsRoot.of("/sys", "/dev"),
                () -> NetnsMode.unknown("not read by the probe"));
        RdmaVerbs.Owned library = io.rdmanode.verbs.internal.LibibverbsRdmaVerbs.load(RdmaVerbs.LIBRARY);
        VerbsTopologySource verbs = new VerbsTopologySource(sysfs, () -> library);
        HostSnapshot before = verbs.scan();
        out("before.available", before.backend().available());
        out("before.reason", before.backend().unavailableReason().orElse(""));
        elapsed("first.scan", start);

        netnsModes();
        rxeSetup();
        // An IPv4 address adds a second GID (::ffff:192.0.2.1, RoCE v2) to rxe0's table.
        run("ip", "addr", "add", "192.0.2.1/24", "dev", "tb0");
        await(Path.of("/sys/class/infiniband/rxe0/ports/1/gids/1"), gid -> gid.contains("c000:0201"));

        elapsed("rxe.setup", start);
        HostSnapshot v = verbs.scan();
        HostSnapshot s = sysfs.scan();
        out("verbs.available", v.backend().available());
        out("verbs.reason", v.backend().unavailableReason().orElse(""));
        print("verbs", v);
        print("sysfs", s);
        RdmaVerbs raw = io.rdmanode.verbs.internal.LibibverbsRdmaVerbs.load(RdmaVerbs.LIBRARY);
        raw(raw.devices());
        RdmaVerbs legacy = io.rdmanode.verbs.internal.LibibverbsRdmaVerbs.load(RdmaVerbs.LIBRARY);
        legacy.useLegacyGidQuery();
        for (IbvDevice d : legacy.devices().devices()) {
            for (IbvPort p : d.ports()) {
                out("legacy." + d.name() + ".port." + p.number() + ".gids", p.gids().stream()
                        .map(g -> g.index() + "=" + g.value()).collect(Collectors.joining(";")));
            }
        }
        elapsed("compared", start);
        for (int i = 0; i < 5; i++) {
            verbs.scan();
        }
        out("scans.after.setup", 6);
        // A port going down: both backends must see the same state, physical state and GIDs.
        run("ip", "link", "set", "tb1", "down");
        await(Path.of("/sys/class/infiniband/rxe1/ports/1/state"), state -> state.contains("DOWN"));
        // Kernel events would hint both netdevs (tb0 loses its carrier with its peer). The incremental update
        // re-opens the two devices whose sysfs view changed; the GID table follows the link asynchronously,
        // so retry (up to 10 s) until the verbs view and a full sysfs scan agree.
        ScanHints linkEvents = new ScanHints().netDevice("tb0").netDevice("tb1");
        long opened = verbs.contextsOpened();
        HostSnapshot[] last = new HostSnapshot[2];
        java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
        try {
            org.awaitility.Awaitility.await().pollDelay(java.time.Duration.ZERO)
                    .pollInterval(java.time.Duration.ofMillis(100)).atMost(java.time.Duration.ofSeconds(10)).until(() -> {
                        attempts.incrementAndGet();
                        last[0] = verbs.update(linkEvents);
                        last[1] = sysfs.scan();
                        return samePort(last[0], last[1], "rxe0") && samePort(last[0], last[1], "rxe1");
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            out("down.timeout", e.getMessage());                // the host side reports the differing views
        }
        HostSnapshot dv = last[0];
        HostSnapshot ds = last[1];
        out("down.attempts", attempts.get());
        out("down.update.opens", verbs.contextsOpened() - opened);
        print("down.verbs", dv);
        print("down.sysfs", ds);
        verbs.update(new ScanHints());                          // settles the cache on the sysfs source's state
        opened = verbs.contextsOpened();
        HostSnapshot idle = verbs.update(new ScanHints().netDevice("lo"));
        out("idle.update.opens", verbs.contextsOpened() - opened);
        out("idle.update.devices", idle.devices().size());
        out("open.uverbs.fds", openUverbsFds());
        elapsed("before.events", start);
        asyncEvents(verbs, library);
        library.close();
        out("events.closed.uverbs.fds", openUverbsFds());
        elapsed("done", start);
        out("done", true);
    }

    /**
     * Issue #8 item 9: a discovery engine on the verbs backend with verbs async events as its only event source
     * (no uevent, no rtnetlink, no periodic rescan), as for an InfiniBand port. {@code ip link set tb1 up} and
     * {@code down} flip rxe1's port; the figures are from starting {@code ip} and from the event's arrival to
     * the listener seeing the new port state. tb1 is down when this starts.
     */
    private static void asyncEvents(VerbsTopologySource source, RdmaVerbs library) throws Exception {
        DiscoveryEngine engine = new DiscoveryEngine(source, 0);
        VerbsEventHints hints = new VerbsEventHints(engine::requestScan);
        java.util.concurrent.BlockingQueue<String> events = new java.util.concurrent.LinkedBlockingQueue<>();
        java.util.concurrent.atomic.AtomicLong firstEventNanos = new java.util.concurrent.atomic.AtomicLong();
        io.rdmanode.verbs.AsyncEventListener timing = e -> {
            firstEventNanos.compareAndSet(0, System.nanoTime());
            events.add(e.toString());
        };
        java.util.concurrent.BlockingQueue<Object[]> states = new java.util.concurrent.LinkedBlockingQueue<>();
        engine.addListener((s, d) -> states.add(new Object[] {System.nanoTime(),
                s.device("rxe1").flatMap(dev -> dev.port(1)).map(p -> p.state().toString()).orElse("")}));
        library.addAsyncEventListener(timing);
        library.addAsyncEventListener(hints);
        try {
            org.awaitility.Awaitility.await("contexts for async events").atMost(java.time.Duration.ofSeconds(20))
                    .until(() -> library.asyncEventDevices().size() == 2);
            out("events.devices", String.join(",", new java.util.TreeSet<>(library.asyncEventDevices())));
            out("events.open.uverbs.fds", openUverbsFds());
            // Three rounds: the first runs cold code paths (the guest JVM interprets and JITs under emulation).
            for (String[] step : new String[][] {{"up", "ACTIVE", "1"}, {"down", "DOWN", "1"}, {"up", "ACTIVE", "2"},
                    {"down", "DOWN", "2"}, {"up", "ACTIVE", "3"}, {"down", "DOWN", "3"}}) {
                firstEventNanos.set(0);
                events.clear();
                states.clear();
                long t0 = System.nanoTime();
                run("ip", "link", "set", "tb1", step[0]);
                long seen = 0;
                while (seen == 0) {
                    Object[] st = states.poll(20, java.util.concurrent.TimeUnit.SECONDS);
                    if (st == null) {
                        break;
                    }
                    if (step[1].equals(st[1])) {
                        seen = (Long) st[0];
                    }
                }
                String k = "events." + step[0] + (step[2].equals("1") ? "" : step[2]);
                out(k + ".rxe1.port.1", seen == 0 ? "not seen" : step[1]);
                out(k + ".received", String.join(";", events));
                if (seen != 0) {
                    out(k + ".ms.from.ip", (seen - t0) / 1_000_000.0);
                    out(k + ".ms.from.event", firstEventNanos.get() == 0 ? -1
                            : (seen - firstEventNanos.get()) / 1_000_000.0);
                }
            }
            out("events.hints.received", hints.received());
            out("events.kernel.events", engine.counters().kernelEvents());
            out("events.incremental.scans", engine.counters().incrementalScans());
        } finally {
            library.removeAsyncEventListener(hints);
            library.removeAsyncEventListener(timing);
            engine.close();
        }
    }

    /** Informational only (the host side asserts no timing): the JVM runs 8-30x slower under emulation. */
    private static void elapsed(String phase, long start) {
        out("ms." + phase, (System.nanoTime() - start) / 1_000_000);
    }

    private static boolean samePort(HostSnapshot a, HostSnapshot b, String device) {
        Optional<RdmaPort> port = a.device(device).flatMap(d -> d.port(1));
        return port.isPresent() && port.equals(b.device(device).flatMap(d -> d.port(1)));
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes()).strip();
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + ": " + output);
        }
    }

    /** Polls a sysfs file (every 50 ms, up to 10 s) until the kernel's asynchronous update shows. */
    private static void await(Path file, java.util.function.Predicate<String> done) {
        org.awaitility.Awaitility.await("sysfs " + file).pollInterval(java.time.Duration.ofMillis(50))
                .atMost(java.time.Duration.ofSeconds(10))
                .until(() -> Files.exists(file) && done.test(Files.readString(file)));
    }

    /**
     * The RDMA subsystem's netns mode through RDMA netlink on a real kernel: shared by default, exclusive after
     * {@code rdma system set netns exclusive} (allowed only while no other network namespace exists, so before
     * rxe-setup), and shared again.
     */
    private static void netnsModes() throws IOException, InterruptedException {
        out("netns.default", io.rdmanode.discovery.internal.netlink.RdmaNetnsModeReader.read().mode());
        run("rdma", "system", "set", "netns", "exclusive");
        out("netns.after.exclusive", io.rdmanode.discovery.internal.netlink.RdmaNetnsModeReader.read().mode());
        run("rdma", "system", "set", "netns", "shared");
        out("netns.after.shared", io.rdmanode.discovery.internal.netlink.RdmaNetnsModeReader.read().mode());
    }

    private static void rxeSetup() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("rxe-setup").redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes()).strip();
        out("rxe-setup.exit", p.waitFor());
        output.lines().forEach(l -> System.out.println("# rxe-setup: " + l));
    }

    private static void print(String backend, HostSnapshot s) {
        out(backend + ".devices", s.devices().stream().map(RdmaDevice::name).collect(Collectors.joining(",")));
        for (RdmaDevice d : s.devices()) {
            String k = backend + "." + d.name();
            out(k + ".node_guid", d.nodeGuid().orElse(""));
            out(k + ".fw_ver", d.fwVersion().orElse(""));
            out(k + ".parent", d.parentNetdev().orElse(""));
            out(k + ".uverbs", d.uverbs().path() + " present=" + d.uverbs().present());
            for (RdmaPort p : d.ports()) {
                out(k + ".port." + p.number(), "state=" + p.state() + " phys=" + p.physState() + " layer="
                        + p.linkLayer() + " rate=" + p.rate().orElse("") + " lid=" + p.lid().map(String::valueOf)
                        .orElse("") + " netdev=" + p.netdev().orElse(""));
                out(k + ".port." + p.number() + ".gids", p.gids().stream().map(VerbsVmProbe::gid)
                        .collect(Collectors.joining(";")));
            }
        }
        for (Problem p : s.problems()) {
            out(backend + ".problem", p.object() + ": " + p.message());
        }
    }

    private static String gid(Gid g) {
        return g.index() + "=" + g.value() + "/" + g.type() + "/" + g.netdev().orElse("");
    }

    private static void raw(IbvDeviceListing listing) {
        listing.failures().forEach((name, why) -> out("raw.failure." + name, why));
        for (IbvDevice d : listing.devices()) {
            String k = "raw." + d.name();
            out(k + ".node_guid", d.nodeGuid());
            out(k + ".sys_image_guid", d.sysImageGuid());
            out(k + ".fw_ver", d.fwVer());
            out(k + ".vendor_id", "0x" + Long.toHexString(d.vendorId()));
            out(k + ".vendor_part_id", d.vendorPartId());
            out(k + ".max_qp", d.maxQp());
            out(k + ".phys_port_cnt", d.ports().size());
            for (IbvPort p : d.ports()) {
                String pk = k + ".port." + p.number();
                out(pk + ".gid_tbl_len", p.gidTblLen());
                out(pk + ".mtu", p.maxMtu() + "/" + p.activeMtu());
                out(pk + ".width_speed", p.activeWidth() + "/" + p.activeSpeed());
                out(pk + ".gid_types", p.gids().stream().map(g -> g.index() + "=" + g.type().orElse(-1) + "@"
                        + g.ndevIfindex()).collect(Collectors.joining(";")));
            }
        }
    }

    /** File descriptors of this process on /dev/infiniband/uverbs*: each open ibv_context holds one. */
    private static long openUverbsFds() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().startsWith("/dev/infiniband/uverbs");
                } catch (IOException e) {
                    return false;                       // the directory stream's own fd, already closed
                }
            }).count();
        }
    }

    private static void out(String key, Object value) {
        System.out.println(key + "=" + value);
    }
}
