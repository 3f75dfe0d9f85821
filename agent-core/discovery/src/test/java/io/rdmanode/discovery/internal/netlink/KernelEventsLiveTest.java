// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.discovery.internal.events.DiscoveryEngine;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Real kernel events: veth/dummy devices created, brought up/down, moved into a test network namespace and
 * back, and deleted; the engine (real /sys, no periodic rescan) must report each change from uevents and
 * rtnetlink alone. Needs root (CAP_NET_ADMIN) and iproute2; skipped otherwise.
 */
class KernelEventsLiveTest {

    private static final String NS = "rdt-disc-" + ProcessHandle.current().pid();
    private static final String VETH = "rdtv" + (ProcessHandle.current().pid() % 10000);
    private static final String DUMMY = "rdtd" + (ProcessHandle.current().pid() % 10000);
    private static final Duration WITHIN = Duration.ofSeconds(2);

    private DiscoveryEngine engine;
    private io.rdmanode.netlink.Listening events;
    private final List<TopologyDiff> diffs = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        Assumptions.assumeTrue(ip("netns", "add", NS) == 0, "needs root and iproute2 (ip netns add)");
        engine = new DiscoveryEngine(new SysfsTopologySource(SysfsRoot.of("/sys", "/dev"),
                () -> NetnsMode.unknown("test")), 0);
        engine.addListener((s, d) -> diffs.add(d));
        events = KernelEvents.listen(engine::hint);
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (events != null) {
            events.close();
            engine.close();
        }
        ip("link", "del", VETH);
        ip("link", "del", DUMMY);
        ip("netns", "del", NS);
    }

    @Test
    void vethLifecycleAndNetnsMovesArriveAsDiffs() throws Exception {
        run("link", "add", VETH, "type", "veth", "peer", "name", VETH + "p", "netns", NS);
        awaitDiff(d -> d.netDevicesAdded().contains(VETH));

        run("link", "set", VETH, "up");
        run("-n", NS, "link", "set", VETH + "p", "up");
        awaitDiff(d -> d.netDevicesChanged().stream().anyMatch(c -> c.name().equals(VETH)
                && c.after().operState().equals("up")));

        run("link", "set", VETH, "down");
        awaitDiff(d -> d.netDevicesChanged().stream().anyMatch(c -> c.name().equals(VETH)
                && c.after().operState().equals("down")));

        run("link", "set", VETH, "netns", NS);
        awaitDiff(d -> d.netDevicesRemoved().contains(VETH));

        run("-n", NS, "link", "set", VETH, "netns", "1");
        awaitDiff(d -> d.netDevicesAdded().contains(VETH));

        run("link", "del", VETH);
        awaitDiff(d -> d.netDevicesRemoved().contains(VETH));
    }

    @Test
    void dummyAddAndDeleteArriveAsDiffs() throws Exception {
        long t0 = System.nanoTime();
        if (ip("link", "add", DUMMY, "type", "dummy") != 0) {
            // Containers without the dummy module: a veth pair whose peer lives in the test namespace.
            run("link", "add", DUMMY, "type", "veth", "peer", "name", DUMMY + "p", "netns", NS);
        }
        awaitDiff(d -> d.netDevicesAdded().contains(DUMMY));
        long addMs = (System.nanoTime() - t0) / 1_000_000;
        t0 = System.nanoTime();
        run("link", "del", DUMMY);
        awaitDiff(d -> d.netDevicesRemoved().contains(DUMMY));
        long delMs = (System.nanoTime() - t0) / 1_000_000;
        // Reported, not asserted: timing belongs in benchmarks (includes forking ip(8)).
        System.out.println("event latency incl. ip(8): add=" + addMs + "ms del=" + delMs + "ms");
        assertThat(engine.snapshot().netDevice(DUMMY)).isEmpty();
    }

    private void awaitDiff(java.util.function.Predicate<TopologyDiff> p) {
        await().atMost(WITHIN).pollInterval(Duration.ofMillis(5)).until(() -> diffs.stream().anyMatch(p));
        diffs.clear();
    }

    private static void run(String... args) throws IOException, InterruptedException {
        assertThat(ip(args)).as("ip %s", String.join(" ", args)).isZero();
    }

    private static int ip(String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "ip";
        System.arraycopy(args, 0, cmd, 1, args.length);
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start().waitFor();
    }
}
