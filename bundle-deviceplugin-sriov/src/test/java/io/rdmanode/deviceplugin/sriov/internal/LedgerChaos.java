// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.sriov.internal.PreferredAllocator.Policy;
import io.rdmanode.deviceplugin.testing.DevicePluginTesting;
import io.rdmanode.kubelet.HeldDevice;
import io.rdmanode.kubelet.testing.KubeletTestbed;
import io.rdmanode.kubelet.testing.PodDevicesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Issue #20's random actions on the recorded ConnectX-5 host, served by the real device-plugin host to the kubelet
 * double with its pod-resources API: admit a pod (1-2 VFs of a served resource), remove a pod, edit the pools
 * (layouts that move VFs between resources), kill the agent (ledger kept, lost or half-written), restart kubelet,
 * hot-swap the SR-IOV pools over the same layer. {@link #doubleHeld} and {@link #missingDeviceInfo} read the
 * invariants; {@link LedgerPropertyTest} asserts them, {@link LedgerBenchmark} counts them.
 */
final class LedgerChaos implements AutoCloseable {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String PF0 = "0000:3b:00.0";
    private static final String PF1 = "0000:86:00.0";

    /** A pool of a layout: its name (resource rdma/name) and which VFs it matches. */
    record PoolSpec(String name, VfMatcher matcher) { }

    private static final VfMatcher RDMA = (vf, h) -> vf.rdmaDevices().isEmpty() ? Optional.of("no RDMA device")
            : Optional.empty();

    private static VfMatcher pf(String pf) {
        return (vf, h) -> vf.pf().toString().equals(pf) ? Optional.empty() : Optional.of("PF " + vf.pf());
    }

    /** Pool layouts an edit moves between, in configuration order; each moves VFs to another resource. */
    static final Map<String, List<PoolSpec>> LAYOUTS = new LinkedHashMap<>();

    static {
        LAYOUTS.put("[pf0, all]", List.of(new PoolSpec("pf0", pf(PF0)), new PoolSpec("all", RDMA)));
        LAYOUTS.put("[all]", List.of(new PoolSpec("all", RDMA)));
        LAYOUTS.put("[pf0 VFs 0-3, all]", List.of(new PoolSpec("pf0", (vf, h) -> vf.index() < 4
                ? pf(PF0).exclusion(vf, h) : Optional.of("index")), new PoolSpec("all", RDMA)));
        LAYOUTS.put("[pf1, pf0]", List.of(new PoolSpec("pf1", pf(PF1)), new PoolSpec("pf0", pf(PF0))));
    }

    private final Path dir;
    private final Random random;
    private final SriovHost host;
    private final KubeletTestbed kubelet;
    private final PodDevicesClient podDevices;
    private DevicePluginLayer layer;
    private SriovPools pools;
    private String layout = "[pf0, all]";
    private final List<String> log = new ArrayList<>();
    private final List<String> pods = new ArrayList<>();
    private final Map<String, Integer> counts = new LinkedHashMap<>();
    private int podCount;

    LedgerChaos(Path dir, long seed) {
        this.dir = dir;
        this.random = new Random(seed);
        this.host = SriovHost.recorded(dir.resolve("host"));
        this.kubelet = KubeletTestbed.start(dir);
        kubelet.servePodResources(dir.resolve("pr.sock"));
        this.podDevices = kubelet.podDevices();
        startAgent();
    }

    /** The actions so far, one a line. */
    List<String> log() {
        return log;
    }

    /** How many of each kind of action ran (admits that succeeded apart). */
    Map<String, Integer> counts() {
        return counts;
    }

    /** One random action; returns its log line. */
    String step() throws IOException {
        int dice = random.nextInt(100);
        if (dice < 40) {
            List<String> resources = resources();
            String resource = resources.get(random.nextInt(resources.size()));
            int count = 1 + random.nextInt(2);
            String pod = "p" + ++podCount;
            try {
                List<String> ids = kubelet.admit("default", pod, "c", resource, count);
                pods.add(pod);
                return done("admit", "admit " + pod + " " + resource + " x" + count + " -> " + ids);
            } catch (IllegalStateException refused) {
                return done("admit refused", "admit " + pod + " " + resource + " x" + count + " refused: "
                        + refused.getMessage());
            }
        } else if (dice < 60) {
            if (pods.isEmpty()) {
                return done("remove", "remove: no pod");
            }
            String pod = pods.remove(random.nextInt(pods.size()));
            return done("remove", "remove " + pod + " (" + kubelet.remove("default", pod) + " devices)");
        } else if (dice < 75) {
            List<String> names = new ArrayList<>(LAYOUTS.keySet());
            names.remove(layout);
            String next = names.get(random.nextInt(names.size()));
            String line = done("edit", "edit " + layout + " -> " + next);
            Map<String, Long> before = registrations(next);
            pools.pools().forEach(pools::remove);
            layout = next;
            addPools();
            awaitRegistrations(before);
            return line;
        } else if (dice < 85) {
            String fault = List.of("ledger kept", "ledger kept", "ledger lost", "ledger corrupt").get(random.nextInt(4));
            String line = done("agent kill", "agent kill, " + fault);
            stopAgent();
            Path ledger = dir.resolve("state/allocations");
            if (fault.equals("ledger lost")) {
                Files.deleteIfExists(ledger);
            } else if (fault.equals("ledger corrupt") && Files.exists(ledger)) {
                String text = Files.readString(ledger);
                Files.writeString(ledger, text.substring(0, text.length() / 2));
            }
            startAgent();
            return line;
        } else if (dice < 93) {
            String line = done("kubelet restart", "kubelet restart");
            Map<String, Long> before = registrations(layout);
            kubelet.restartKubelet();
            awaitRegistrations(before);
            return line;
        } else {
            String line = done("hot swap", "hot swap");
            Map<String, Long> before = registrations(layout);
            pools.close();
            pools = new SriovPools(host, layer, new RdmaVfLedger(dir.resolve("state/rdma-vfs")));
            addPools();
            awaitRegistrations(before);
            return line;
        }
    }

    private String done(String kind, String line) {
        counts.merge(kind, 1, Integer::sum);
        log.add(line);
        return line;
    }

    /** Device IDs kubelet's book (its pod-resources answer) lists under more than one pod, with the pods. */
    Map<String, Set<String>> doubleHeld() {
        Map<String, Set<String>> holders = new HashMap<>();
        podDevices.running().devices().forEach(d -> holders.computeIfAbsent(d.deviceId(), k -> new TreeSet<>())
                .add(d.podKey()));
        holders.values().removeIf(by -> by.size() < 2);
        return holders;
    }

    /**
     * VFs kubelet lists as held under a resource a current pool serves that have no device-info file, after
     * waiting up to {@code wait} for one (the layer reconciles every 300 ms).
     */
    List<String> missingDeviceInfo(Duration wait) {
        if (!wait.isZero()) {
            try {
                Awaitility.await().atMost(wait).pollInterval(Duration.ofMillis(20))
                        .until(() -> missingDeviceInfo(Duration.ZERO).isEmpty());
            } catch (ConditionTimeoutException stillMissing) {
                // reported below
            }
        }
        List<String> missing = new ArrayList<>();
        Set<String> served = Set.copyOf(resources());
        for (HeldDevice d : podDevices.running().devices()) {
            if (served.contains(d.resourceName()) && !Files.exists(dir.resolve("devinfo")
                    .resolve(d.resourceName().replace('/', '-') + "-" + d.deviceId() + "-device.json"))) {
                missing.add(d.resourceName() + " " + d.deviceId() + " held by " + d.podKey());
            }
        }
        return missing;
    }

    private void startAgent() {
        Map<String, Long> before = registrations(layout);
        layer = DevicePluginTesting.layer(new LayerSettings(new DevicePaths(host.devRoot()), List.of()),
                dir.resolve("state/allocations"), podDevices);
        pools = new SriovPools(host, layer, new RdmaVfLedger(dir.resolve("state/rdma-vfs")));
        addPools();
        awaitRegistrations(before);
    }

    private void stopAgent() {
        if (pools != null) {
            pools.close();
            pools = null;
        }
        if (layer != null) {
            DevicePluginTesting.close(layer);
            layer = null;
        }
    }

    private void addPools() {
        List<PoolSpec> specs = LAYOUTS.get(layout);
        for (int order = 0; order < specs.size(); order++) {
            PoolSpec p = specs.get(order);
            pools.add(new SriovPoolSettings(p.name(), order, "rdma", p.name(), Policy.SPREAD, false,
                    dir.resolve("devinfo")), p.matcher(), kubelet.host());
        }
    }

    private List<String> resources() {
        return LAYOUTS.get(layout).stream().map(p -> "rdma/" + p.name()).toList();
    }

    private Map<String, Long> registrations(String ofLayout) {
        Map<String, Long> m = new HashMap<>();
        LAYOUTS.get(ofLayout).forEach(p -> m.put("rdma/" + p.name(), kubelet.registrations("rdma/" + p.name())));
        return m;
    }

    /** Every pool of the layout registered once more than before (a new socket, a new ListAndWatch). */
    private void awaitRegistrations(Map<String, Long> before) {
        before.forEach((resource, count) -> kubelet.awaitRegistrations(resource, count + 1, WAIT));
    }

    @Override
    public void close() {
        stopAgent();
        podDevices.close();
        kubelet.close();
    }
}
