// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.rdmanode.agent.Ttar;
import io.rdmanode.kubelet.HeldDevice;
import io.rdmanode.kubelet.testing.KubeletDouble;
import io.rdmanode.kubelet.testing.PodDevicesClient;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 20's scenario suite on the built distribution, started with the shipped script and a config of its own on
 * the recorded demo host, against the kubelet double (its checkpoint, its pod-resources socket): a pod holds a VF,
 * the agent is SIGKILLed at a random point of a run of admissions (seeded: the seed is printed, {@code -Dit.seed}
 * repeats it), and starts again with a pool edit that puts the held VF's PF under a new pool listed first. Then
 * every device the new resource offers is admitted: no device is ever held by two pods (kubelet's PodResources),
 * the held VF keeps its device-info file while its pod runs and loses it once the pod is removed, and
 * {@code /status} and {@code /metrics} name the pod. Variants: kubelet restarts too; PodResources is down at the
 * start (checkpoint fallback); the ledger file is corrupt or truncated; the SR-IOV bundle jar is swapped while
 * admissions run.
 */
class AllocationStateIT {

    static final long SEED = Long.getLong("it.seed", System.nanoTime());
    static final String LOW = "rdma/sriov_pf0_low";
    static final String RDMA = "rdma/sriov_rdma";
    static final String MOVED = "rdma/sriov_moved";
    static final Duration START = Duration.ofSeconds(60);
    /** The ledger's reconciliation period (10 s) and slack for a loaded machine. */
    static final Duration RELEASE = Duration.ofSeconds(20);

    private final Random random = new Random(SEED);
    private Path dir;        // short: Unix socket paths have 107 usable bytes
    private Path home;
    private Path state;
    private Path host;
    private Path pluginDir;
    private Path podResources;
    private Path devinfo;
    private final List<AgentProcess> agents = new ArrayList<>();
    /** namespace/pod to the devices the double's Allocate gave it, of every pod admitted and not removed. */
    private final Map<String, Set<String>> pods = new ConcurrentHashMap<>();

    @BeforeEach
    void world() throws IOException {
        System.out.println("AllocationStateIT seed " + SEED + " (-Dit.seed=" + SEED + " repeats it)");
        dir = Files.createTempDirectory(Path.of("/tmp"), "as");
        home = dir.resolve("home");
        AgentProcessIT.copyTree(AgentProcessIT.DIST, home);
        state = dir.resolve("state");
        host = dir.resolve("host");
        Ttar.unpack(home.resolve("config/demo-host/cx5-roce-sriov.ttar"), host);
        pluginDir = Files.createDirectories(dir.resolve("dp"));
        podResources = dir.resolve("pr.sock");
        devinfo = dir.resolve("devinfo");
    }

    @AfterEach
    void clean() throws IOException {
        agents.forEach(AgentProcess::close);
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void aHeldVfMovedToAPoolListedFirstIsNeverGivenToASecondPod() throws Exception {
        try (KubeletDouble kubelet = KubeletDouble.start(pluginDir, podResources)) {
            for (int round = 0; round < 2; round++) {             // kubelet lives on; the ledger has a past
                scenario("agent killed, pool edit", round, Fault.NONE, kubelet);
            }
        }
    }

    @Test
    void kubeletAndAgentRestartTogether() throws Exception {
        try (KubeletDouble kubelet = KubeletDouble.start(pluginDir, podResources)) {
            scenario("kubelet and agent restart", 0, Fault.KUBELET_RESTART, kubelet);
        }
    }

    @Test
    void podResourcesDownAtStartFallsBackToTheCheckpoint() throws Exception {
        try (KubeletDouble kubelet = KubeletDouble.start(pluginDir, podResources)) {
            scenario("pod-resources down at start", 0, Fault.POD_RESOURCES_DOWN, kubelet);
        }
    }

    @Test
    void aCorruptOrTruncatedLedgerIsNotTrustedAndNothingIsServedTwice() throws Exception {
        try (KubeletDouble kubelet = KubeletDouble.start(pluginDir, podResources)) {
            scenario("ledger " + (random.nextBoolean() ? "truncated" : "corrupt"), 0, Fault.LEDGER, kubelet);
        }
    }

    @Test
    void aSwapOfTheSriovBundleWhileAdmissionsRunServesNothingTwice() throws Exception {
        try (KubeletDouble kubelet = KubeletDouble.start(pluginDir, podResources)) {
            scenario("bundle swapped mid-admissions", 0, Fault.HOT_SWAP, kubelet);
        }
    }

    enum Fault { NONE, KUBELET_RESTART, POD_RESOURCES_DOWN, LEDGER, HOT_SWAP }

    private void scenario(String name, int round, Fault fault, KubeletDouble kubelet) throws Exception {
        String ns = "r" + round;
        pods.clear();
        {
            // First start: the demo host's two SR-IOV pools.
            AgentProcess first = start(false, kubelet, List.of(LOW, RDMA));
            String p1 = ns + "/p1";
            // Right after a start the agent may still withhold VFs its ledger file names, until it has asked
            // kubelet (the PodDevices service binds after the pools first serve): a pod is admitted once one is free.
            long firstStarted = System.nanoTime();
            List<String> ids = new ArrayList<>();
            await("a VF of " + LOW + " free for p1", Duration.ofSeconds(20), () -> {
                try {
                    ids.addAll(admit(kubelet, ns, "p1", LOW));
                    return true;
                } catch (IllegalStateException noneFreeYet) {
                    return false;
                }
            });
            System.out.printf("%s round %d: p1 admitted %d ms after the registrations%n", name, round,
                    (System.nanoTime() - firstStarted) / 1_000_000);
            String vf = ids.get(0);
            Path info = devinfo.resolve("rdma-sriov_pf0_low-" + vf + "-device.json");
            assertThat(info).as("device-info file of the VF p1 holds").exists();

            // Admissions go on in the background; the agent is killed after a random number of them.
            int killAfter = random.nextInt(4);
            AtomicInteger admitted = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            Thread background = background(kubelet, ns, RDMA, admitted, stop);
            if (fault == Fault.HOT_SWAP) {
                Path jar;
                try (Stream<Path> jars = Files.list(home.resolve("bundles"))) {
                    jar = jars.filter(p -> p.getFileName().toString().contains("deviceplugin-sriov")).findFirst()
                            .orElseThrow();
                }
                byte[] build = HotSwapIT.rebuilt(jar, "swap-" + round);
                try (OutputStream out = Files.newOutputStream(jar)) {
                    out.write(build);
                }
                await("the SR-IOV bundle updated", Duration.ofSeconds(30),
                        () -> first.output().contains("updated=[io.rdmanode.deviceplugin.sriov/"));
            }
            await(killAfter + " background admissions", Duration.ofSeconds(30),
                    () -> admitted.get() >= killAfter || !background.isAlive());
            first.kill();
            stop.set(true);
            background.join(Duration.ofSeconds(30).toMillis());
            System.out.printf("%s round %d: agent SIGKILLed after %d background admission(s) (seed %d)%n", name,
                    round, admitted.get(), SEED);
            assertThat(info).as("device-info file survives a SIGKILL").exists();
            noDeviceHeldTwice(kubelet);

            switch (fault) {
                case KUBELET_RESTART -> kubelet.restart();
                case POD_RESOURCES_DOWN -> kubelet.stopPodResources();
                case LEDGER -> {
                    Path ledger = state.resolve("deviceplugin/allocations");
                    byte[] bytes = Files.readAllBytes(ledger);
                    if (name.contains("truncated")) {
                        Files.write(ledger, java.util.Arrays.copyOf(bytes, bytes.length / 2));
                    } else {
                        bytes[bytes.length / 2] ^= 0x5a;
                        Files.write(ledger, bytes);
                    }
                }
                default -> { }
            }

            // Second start: a new pool listed first takes PF0's low VFs, the held one included.
            long started = System.nanoTime();
            AgentProcess second = start(true, kubelet, List.of(MOVED, LOW, RDMA));
            System.out.printf("%s round %d: agent start -> every resource registered again: %d ms%n", name, round,
                    (System.nanoTime() - started) / 1_000_000);
            if (fault == Fault.LEDGER) {
                assertThat(second.output()).as("ledger not trusted").contains("not trusted");
            }
            String base = second.awaitStarted(START);
            assertThat(info).as("device-info file of the held VF after the restart").exists();

            // Every device the new resource offers, one pod each: never the held VF.
            // (After an untrusted ledger nothing is offered until the agent has asked kubelet: the first pod waits.)
            List<String> moved = new ArrayList<>();
            long firstAsked = System.nanoTime();
            await("a first VF of " + MOVED + " free", Duration.ofSeconds(20), () -> {
                try {
                    moved.addAll(admit(kubelet, ns, "m", MOVED));
                    return true;
                } catch (IllegalStateException noneFreeYet) {
                    return false;
                }
            });
            System.out.printf("%s round %d: first pod of %s admitted %d ms after ready%n", name, round, MOVED,
                    (System.nanoTime() - firstAsked) / 1_000_000);
            for (int i = 0; ; i++) {
                try {
                    moved.addAll(admit(kubelet, ns, "m" + i, MOVED));
                } catch (IllegalStateException none) {
                    assertThat(none.getMessage()).as("admission ends for want of free devices").contains("free");
                    break;
                }
            }
            System.out.printf("%s round %d: %s offered %s; %s held by %s%n", name, round, MOVED, moved, vf, p1);
            assertThat(moved).as("VFs admitted under " + MOVED).isNotEmpty().doesNotContain(vf);
            assertThat(kubelet.deviceLists(MOVED)).as("every ListAndWatch list of " + MOVED + " while p1 runs")
                    .isNotEmpty().allSatisfy(list -> assertThat(list).doesNotContain(vf));
            noDeviceHeldTwice(kubelet);
            assertThat(info).as("device-info file while p1 runs").exists();
            String holder = fault == Fault.POD_RESOURCES_DOWN ? kubelet.podUid(ns, "p1") + "/c" : p1 + "/c";
            long askedAt = System.nanoTime();
            try {
                await("/status deviceplugin.held lists " + vf + " held by " + holder, Duration.ofSeconds(15),
                        () -> heldInStatus(base).getOrDefault(vf, "").equals(holder));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError(AgentProcess.json(base + "/status").get("deviceplugin") + "\n"
                        + second.output().lines().filter(l -> l.contains("ledger") || l.contains("held")
                        || l.contains("PodDevices") || l.contains("pod-resources")).collect(
                        java.util.stream.Collectors.joining("\n")), e);
            }
            System.out.printf("%s round %d: /status names the holder %d ms after ready%n", name, round,
                    (System.nanoTime() - askedAt) / 1_000_000);
            second.output().lines().filter(l -> l.contains("allocation ledger") || l.contains("device held"))
                    .forEach(l -> System.out.println("  agent: " + l));
            String metrics = AgentProcess.get(base + "/metrics").body();
            assertThat(metrics.lines().filter(l -> l.startsWith("rdma_agent_deviceplugin_held_device{")
                    && l.contains("device=\"" + vf + "\"") && l.contains("holder=\"" + holder + "\"")))
                    .as("held_device metric of %s:\n%s", vf, metrics).hasSize(1);

            // p1 ends: its device-info file goes within the reconciliation period, and its VF is free for one pod.
            if (fault == Fault.POD_RESOURCES_DOWN) {
                kubelet.startPodResources();
            }
            kubelet.remove(ns, "p1");
            pods.remove(p1);
            long removed = System.nanoTime();
            await("device-info file of " + vf + " removed", RELEASE, () -> !Files.exists(info));
            System.out.printf("%s round %d: pod removed -> device-info file gone: %d ms%n", name, round,
                    (System.nanoTime() - removed) / 1_000_000);
            await(vf + " offered under " + MOVED + " once released", Duration.ofSeconds(10), () -> {
                try {
                    List<String> got = admit(kubelet, ns, "again", MOVED);
                    return got.contains(vf);
                } catch (IllegalStateException notYet) {
                    return false;
                }
            });
            noDeviceHeldTwice(kubelet);
            assertThat(second.terminate(Duration.ofSeconds(15))).as("exit code:\n%s", second.output()).isZero();
            for (String pod : List.copyOf(pods.keySet())) {
                String[] nsPod = pod.split("/");
                kubelet.remove(nsPod[0], nsPod[1]);
            }
            pods.clear();
        }
    }

    private AgentProcess start(boolean edited, KubeletDouble kubelet, List<String> resources) throws Exception {
        Path config = dir.resolve(edited ? "edited.conf" : "agent.conf");
        Files.writeString(config, config(edited));
        Map<String, Long> before = new TreeMap<>();
        resources.forEach(r -> before.put(r, kubelet.registrations(r)));
        AgentProcess agent = AgentProcess.start(home, state, Map.of(), "--config", config.toString());
        agents.add(agent);
        for (String r : resources) {
            try {
                kubelet.awaitRegistrations(r, before.get(r) + 1, START);
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError(r + " not registered:\n" + agent.output(), e);
            }
            kubelet.watch(r, Duration.ofSeconds(10));
        }
        return agent;
    }

    private String config(boolean edited) {
        String moved = edited ? """
                  { name = sriov_moved, selectors { pfNames = ["ens1f0#0-3"] }, deviceInfoDir = "%s" }
                """.formatted(devinfo) : "";
        return """
                agent {
                  runtime { stateDir = "%1$s", log.level = info }
                  http { host = "127.0.0.1", port = 0 }
                }
                discovery { backend = sysfs, sysfsRoot = "%2$s/sys", devRoot = "%2$s/dev" }
                kubelet { pluginDir = "%3$s", registration = classic, podResourcesSocket = "%4$s" }
                deviceplugin.common { hostDevRoot = "%2$s/dev", cdiSpecDirs = ["%1$s/cdi"] }
                deviceplugin.sriov.pools = [
                %6$s  { name = sriov_pf0_low, policy = pack, selectors { pfNames = ["ens1f0#0-3"] },
                    deviceInfoDir = "%5$s" }
                  { name = sriov_rdma, selectors { vendors = ["15b3"], devices = ["1018"], isRdma = true,
                                                   pfNames = ["ens1f0#6", "ens2f0"] }, deviceInfoDir = "%5$s" }
                ]
                """.formatted(state, host, pluginDir, podResources, devinfo, moved);
    }

    /** One container {@code c} asking for one device of {@code resource}; recorded as the pod's. */
    private List<String> admit(KubeletDouble kubelet, String ns, String pod, String resource) {
        List<String> ids = kubelet.admit(ns, pod, "c", resource, 1);
        pods.computeIfAbsent(ns + "/" + pod, k -> ConcurrentHashMap.newKeySet()).addAll(ids);
        return ids;
    }

    private Thread background(KubeletDouble kubelet, String ns, String resource, AtomicInteger admitted,
                              AtomicBoolean stop) {
        Thread t = new Thread(() -> {
            for (int i = 0; !stop.get() && i < 4; i++) {
                try {
                    admit(kubelet, ns, "bg" + i, resource);
                    admitted.incrementAndGet();
                } catch (RuntimeException agentGoneOrNoneFree) {
                    return;                             // kubelet would fail the pod; nothing was recorded
                }
            }
        }, "background-admissions");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * No device is held by two pods, in kubelet's PodResources (or checkpoint) and in what the double's Allocate
     * handed out to the pods not removed.
     */
    private void noDeviceHeldTwice(KubeletDouble kubelet) {
        Map<String, Set<String>> holders = new TreeMap<>();
        try (PodDevicesClient client = kubelet.podDevices()) {
            for (HeldDevice d : client.running().devices()) {
                holders.computeIfAbsent(d.deviceId(), k -> new TreeSet<>()).add(d.podKey());
            }
        }
        assertThat(holders.entrySet().stream().filter(e -> e.getValue().size() > 1).toList())
                .as("devices kubelet lists under two pods").isEmpty();
        Map<String, List<String>> given = new TreeMap<>();
        pods.forEach((pod, ids) -> ids.forEach(id -> given.computeIfAbsent(id, k -> new ArrayList<>()).add(pod)));
        assertThat(given.entrySet().stream().filter(e -> e.getValue().size() > 1).toList())
                .as("devices Allocate gave to two running pods").isEmpty();
    }

    /** {@code /status} deviceplugin.held.devices: device to holder. */
    private static Map<String, String> heldInStatus(String base) throws Exception {
        JsonObject held = AgentProcess.json(base + "/status").getAsJsonObject("deviceplugin").getAsJsonObject("held");
        Map<String, String> m = new TreeMap<>();
        for (JsonElement e : held.getAsJsonArray("devices")) {
            JsonObject d = e.getAsJsonObject();
            m.put(d.get("device").getAsString(), d.get("holder").getAsString());
        }
        return m;
    }

    interface Check {
        boolean holds() throws Exception;
    }

    private static ConditionFactory poll(String what) {
        return Awaitility.await(what).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50));
    }

    private static void await(String what, Duration atMost, Check check) {
        poll(what).atMost(atMost).ignoreExceptions().until(check::holds);
    }
}
