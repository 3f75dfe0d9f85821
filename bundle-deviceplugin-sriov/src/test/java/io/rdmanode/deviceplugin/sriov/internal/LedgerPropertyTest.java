// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #20's property: random sequences of admit, pod removal, pool edit (VFs moving between resources), agent
 * kill (ledger kept, lost or corrupt), kubelet restart and SR-IOV hot swap on the recorded ConnectX-5 host, served
 * by the real device-plugin host to the kubelet double. After every action: no device ID is held by two pods in
 * kubelet's book (read through PodResources), and every VF held under a resource a current pool serves has its
 * device-info file. A failure names the seed and the actions so far.
 */
class LedgerPropertyTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int ACTIONS = 40;
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
    private static final Map<String, List<PoolSpec>> LAYOUTS = new LinkedHashMap<>();

    static {
        LAYOUTS.put("[pf0, all]", List.of(new PoolSpec("pf0", pf(PF0)), new PoolSpec("all", RDMA)));
        LAYOUTS.put("[all]", List.of(new PoolSpec("all", RDMA)));
        LAYOUTS.put("[pf0 VFs 0-3, all]", List.of(new PoolSpec("pf0", (vf, h) -> vf.index() < 4
                ? pf(PF0).exclusion(vf, h) : Optional.of("index")), new PoolSpec("all", RDMA)));
        LAYOUTS.put("[pf1, pf0]", List.of(new PoolSpec("pf1", pf(PF1)), new PoolSpec("pf0", pf(PF0))));
    }

    @TempDir
    Path dir;
    private SriovHost host;
    private KubeletTestbed kubelet;
    private PodDevicesClient podDevices;
    private DevicePluginLayer layer;
    private SriovPools pools;
    private String layout;
    private final List<String> log = new ArrayList<>();
    private final List<String> pods = new ArrayList<>();
    private int podCount;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 20, 42, 2026})
    void noDeviceHeldTwiceAndEveryHeldVfHasItsDeviceInfo(long seed) {
        Random random = new Random(seed);
        host = SriovHost.recorded(dir.resolve("host"));
        kubelet = KubeletTestbed.start(dir);
        kubelet.servePodResources(dir.resolve("pr.sock"));
        podDevices = kubelet.podDevices();
        try {
            layout = "[pf0, all]";
            startAgent();
            for (int i = 0; i < ACTIONS; i++) {
                act(random);
                check();
            }
        } catch (Throwable e) {
            throw new AssertionError("seed " + seed + ", actions:\n  " + String.join("\n  ", log) + "\n" + e, e);
        } finally {
            if (pools != null) {
                pools.close();
            }
            if (layer != null) {
                DevicePluginTesting.close(layer);
            }
            podDevices.close();
            kubelet.close();
        }
    }

    private void act(Random random) throws IOException {
        int dice = random.nextInt(100);
        if (dice < 40) {
            List<String> resources = resources();
            String resource = resources.get(random.nextInt(resources.size()));
            int count = 1 + random.nextInt(2);
            String pod = "p" + ++podCount;
            try {
                List<String> ids = kubelet.admit("default", pod, "c", resource, count);
                pods.add(pod);
                log.add("admit " + pod + " " + resource + " x" + count + " -> " + ids);
            } catch (IllegalStateException refused) {
                log.add("admit " + pod + " " + resource + " x" + count + " refused: " + refused.getMessage());
            }
        } else if (dice < 60) {
            if (pods.isEmpty()) {
                log.add("remove: no pod");
                return;
            }
            String pod = pods.remove(random.nextInt(pods.size()));
            log.add("remove " + pod + " (" + kubelet.remove("default", pod) + " devices)");
        } else if (dice < 75) {
            List<String> names = new ArrayList<>(LAYOUTS.keySet());
            names.remove(layout);
            String next = names.get(random.nextInt(names.size()));
            log.add("edit " + layout + " -> " + next);
            Map<String, Long> before = registrations(next);
            pools.pools().forEach(pools::remove);
            layout = next;
            addPools();
            awaitRegistrations(before);
        } else if (dice < 85) {
            String fault = List.of("ledger kept", "ledger kept", "ledger lost", "ledger corrupt").get(random.nextInt(4));
            log.add("agent kill, " + fault);
            pools.close();
            DevicePluginTesting.close(layer);
            pools = null;
            layer = null;
            Path ledger = dir.resolve("state/allocations");
            if (fault.equals("ledger lost")) {
                Files.deleteIfExists(ledger);
            } else if (fault.equals("ledger corrupt") && Files.exists(ledger)) {
                String text = Files.readString(ledger);
                Files.writeString(ledger, text.substring(0, text.length() / 2));
            }
            startAgent();
        } else if (dice < 93) {
            log.add("kubelet restart");
            Map<String, Long> before = registrations(layout);
            kubelet.restartKubelet();
            awaitRegistrations(before);
        } else {
            log.add("hot swap");
            Map<String, Long> before = registrations(layout);
            pools.close();
            pools = new SriovPools(host, layer, new RdmaVfLedger(dir.resolve("state/rdma-vfs")));
            addPools();
            awaitRegistrations(before);
        }
    }

    private void startAgent() {
        Map<String, Long> before = registrations(layout);
        layer = DevicePluginTesting.layer(new LayerSettings(new DevicePaths(host.devRoot()), List.of()),
                dir.resolve("state/allocations"), podDevices);
        pools = new SriovPools(host, layer, new RdmaVfLedger(dir.resolve("state/rdma-vfs")));
        addPools();
        awaitRegistrations(before);
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

    private void check() {
        List<HeldDevice> book = podDevices.running().devices();
        Map<String, Set<String>> holders = new HashMap<>();
        book.forEach(d -> holders.computeIfAbsent(d.deviceId(), k -> new TreeSet<>()).add(d.podKey()));
        holders.forEach((id, by) -> assertThat(by).as("pods holding %s in kubelet's book %s", id, book).hasSize(1));

        Set<String> served = Set.copyOf(resources());
        Awaitility.await().atMost(WAIT).untilAsserted(() -> {
            for (HeldDevice d : podDevices.running().devices()) {
                if (served.contains(d.resourceName())) {
                    assertThat(new DeviceInfoFiles(dir.resolve("devinfo"), d.resourceName()).file(d.deviceId()))
                            .as("device-info of %s held by %s under %s", d.deviceId(), d.podKey(), d.resourceName())
                            .exists();
                }
            }
        });
    }
}
