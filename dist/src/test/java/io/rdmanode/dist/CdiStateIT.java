// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.agent.Ttar;
import io.rdmanode.kubelet.testing.KubeletDouble;
import java.io.IOException;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 27's "state the runtime reads outlives the process" on the built distribution, started with the shipped
 * script on the recorded demo host against the kubelet double (its own book and PodResources): a shared pool and
 * an SR-IOV pool with CDI on, pods admitted in a loop, the agent SIGKILLed at a random point of it (seeded: the
 * seed is printed, {@code -Dit.seed} repeats it) and started again, three times, every other start with an edit
 * that lists a new SR-IOV pool first over the same VFs (and the next one without it, while pods hold its VFs).
 * A sampler checks every 10 ms, through the runs, the gaps and the starts, that every device kubelet's book holds
 * has its CDI spec (naming the device) and, for a VF, its device-info file. Held VFs are never in another pool's
 * ListAndWatch lists. Then SIGTERM keeps them all, and a pod that ends loses its VF's device-info file.
 */
class CdiStateIT {

    static final long SEED = Long.getLong("it.seed", System.nanoTime());
    static final String SHARED = "rdma/hca_shared";
    static final String SRIOV = "rdma/sriov_rdma";
    static final String MOVED = "rdma/sriov_moved";
    static final Duration START = Duration.ofSeconds(60);
    /** The ledger's reconciliation period (10 s) and slack for a loaded machine. */
    static final Duration RELEASE = Duration.ofSeconds(25);

    private final Random random = new Random(SEED);
    private Path dir;        // short: Unix socket paths have 107 usable bytes
    private Path home;
    private Path state;
    private Path host;
    private Path pluginDir;
    private Path podResources;
    private Path devinfo;
    private Path cdi;
    private final List<AgentProcess> agents = new ArrayList<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> samples = new TreeMap<>();
    private volatile String phase = "start";
    private final AtomicBoolean sampling = new AtomicBoolean(true);
    private final java.util.concurrent.atomic.AtomicReference<String> lastRefusal =
            new java.util.concurrent.atomic.AtomicReference<>();

    @BeforeEach
    void world() throws IOException {
        System.out.println("CdiStateIT seed " + SEED + " (-Dit.seed=" + SEED + " repeats it)");
        dir = Files.createTempDirectory(Path.of("/tmp"), "cs");
        home = dir.resolve("home");
        AgentProcessIT.copyTree(AgentProcessIT.DIST, home);
        state = dir.resolve("state");
        host = dir.resolve("host");
        Ttar.unpack(home.resolve("config/demo-host/cx5-roce-sriov.ttar"), host);
        pluginDir = Files.createDirectories(dir.resolve("dp"));
        podResources = dir.resolve("pr.sock");
        devinfo = dir.resolve("devinfo");
        cdi = dir.resolve("cdi");
        List.of("start", "run", "gap", "restarted", "stopped").forEach(p -> samples.put(p, new AtomicInteger()));
    }

    @AfterEach
    void clean() throws IOException {
        sampling.set(false);                                  // no sample of a tree being deleted
        agents.forEach(AgentProcess::close);
        // The agents' logs outlive the run, for a failure's post-mortem: target/it-logs/CdiStateIT-<n>.log.
        Path logs = Files.createDirectories(Path.of("target/it-logs"));
        for (int i = 0; i < agents.size(); i++) {
            Files.copy(agents.get(i).log, logs.resolve("CdiStateIT-" + i + "-pid" + agents.get(i).pid() + ".log"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void theSpecsAndDeviceInfoOfHeldDevicesOutliveKillsRestartsAndStop() throws Exception {
        long began = System.nanoTime();
        try (KubeletDouble kubelet = KubeletDouble.start(pluginDir, podResources)) {
            Thread sampler = sampler(kubelet);
            AgentProcess agent = start(kubelet, false);
            int pod = 0;
            for (int round = 0; round < 3; round++) {
                phase = "run";
                boolean running = round % 2 == 1;                 // this instance's configuration is the edited one
                boolean edited = !running;                        // the next start's
                List<String> resources = running ? List.of(SHARED, SRIOV, MOVED) : List.of(SHARED, SRIOV);
                AtomicInteger admitted = new AtomicInteger();
                AtomicBoolean stop = new AtomicBoolean();
                Thread loop = admissions(kubelet, resources, pod, admitted, stop, 0);
                int killAfter = 1 + random.nextInt(6);
                await(killAfter + " admissions", Duration.ofSeconds(30), () -> admitted.get() >= killAfter);
                Thread.sleep(random.nextInt(30));                // somewhere inside an Allocate, or between two
                agent.kill();
                phase = "gap";
                stop.set(true);
                loop.join(Duration.ofSeconds(30).toMillis());
                pod += 1000;
                System.out.printf("round %d: SIGKILL after %d admission(s); held %s=%d %s=%d %s=%d (seed %d)%n",
                        round, admitted.get(), SHARED, kubelet.held(SHARED).size(), SRIOV, kubelet.held(SRIOV).size(),
                        MOVED, kubelet.held(MOVED).size(), SEED);
                Thread.sleep(200 + random.nextInt(300));          // the gap: nothing serves, pods run on
                agent = start(kubelet, edited);
                phase = "restarted";
                notOfferedElsewhere(kubelet, edited);
            }
            String base = agent.awaitReady(START);
            System.out.println("deviceplugin status: " + AgentProcess.json(base + "/status").getAsJsonObject(
                    "deviceplugin").get("cdiSpecsKept"));

            // A pod holding a VF ends: its device-info file goes within the reconciliation period.
            Map.Entry<String, String> ended = endOnePodHoldingAVf(kubelet);
            Path endedInfo = devinfo.resolve(ended.getValue().replace('/', '-') + "-" + ended.getKey() + "-device.json");
            await("device-info of released " + ended.getKey(), RELEASE, () -> !Files.exists(endedInfo));

            assertThat(agent.terminate(Duration.ofSeconds(15))).as("exit code:\n%s", agent.output()).isZero();
            phase = "stopped";
            Thread.sleep(300);
            sampling.set(false);
            sampler.join();
            System.out.printf("samples %s; %d ms in all%n", samples, (System.nanoTime() - began) / 1_000_000);
            assertThat(violations).as("files of held devices missing (of %s samples)", samples).isEmpty();
            assertThat(samples.get("gap").get()).as("samples in the gaps").isPositive();
            assertThat(samples.get("stopped").get()).as("samples after SIGTERM").isPositive();
            assertThat(kubelet.held(SRIOV)).as("the run admitted VFs").isNotEmpty();
            assertThat(kubelet.held(SHARED)).as("the run admitted shared IDs").isNotEmpty();
        }
    }

    /**
     * A SIGKILL in the middle of a handover: a successor starts beside the serving agent while pods are admitted,
     * and at a random point of its start and takeover (seeded) one of the two is killed, the predecessor in the
     * first round, the successor in the second, either in the third. A supervisor starts the killed one again
     * (systemd's {@code Restart=}, kubelet restarting the container); it takes over from the survivor. Through
     * every gap and start, the files of held devices stay; the newest serves every pool and admits pods; held
     * VFs are offered nowhere else; every survivor stops with 0 on SIGTERM.
     */
    @Test
    void aKillAtAnyPointOfAHandoverLosesNoHeldDevicesFiles() throws Exception {
        List<String> resources = List.of(SHARED, SRIOV);
        try (KubeletDouble kubelet = KubeletDouble.start(pluginDir, podResources)) {
            Thread sampler = sampler(kubelet);
            AgentProcess serving = start(kubelet, false);
            int pod = 0;
            for (int round = 0; round < 3; round++) {
                phase = "run";
                AtomicInteger admitted = new AtomicInteger();
                AtomicBoolean stop = new AtomicBoolean();
                Thread loop = admissions(kubelet, resources, pod, admitted, stop, 8);
                int before = 1 + random.nextInt(4);
                await(before + " admissions", Duration.ofSeconds(60), () -> admitted.get() >= before);

                AgentProcess successor = AgentProcess.start(home, state, Map.of(), "--config",
                        dir.resolve("agent.conf").toString());
                agents.add(successor);
                boolean killPredecessor = round == 0 || (round == 2 && random.nextBoolean());
                long delay = random.nextInt(2500);       // JVM start, configuration, takeover, registration
                Thread.sleep(delay);
                AgentProcess victim = killPredecessor ? serving : successor;
                AgentProcess survivor = killPredecessor ? successor : serving;
                victim.kill();
                phase = "gap";
                System.out.printf("round %d: SIGKILL of the %s %d ms after the successor's exec, %d admission(s)"
                        + " (seed %d)%n", round, killPredecessor ? "predecessor" : "successor", delay,
                        admitted.get(), SEED);

                // The supervisor restarts the killed one: it takes over from the survivor (or, when the survivor is
                // itself still taking over from the killed one, from it once it serves).
                AgentProcess started = AgentProcess.start(home, state, Map.of(), "--config",
                        dir.resolve("agent.conf").toString());
                agents.add(started);
                // Which of the two owns the node is the handover's outcome: usually the restarted one takes over
                // from the survivor; when the restarted one found no live predecessor (the survivor had not served
                // its handover door yet), it started first and the survivor takes over from it.
                AgentProcess[] roles = new AgentProcess[2];
                try {
                    await("one owner of the two", START, () -> {
                        if (started.output().contains("handed over to a successor")) {
                            roles[0] = survivor;
                            roles[1] = started;
                        } else if (survivor.output().contains("handed over to a successor")) {
                            roles[0] = started;
                            roles[1] = survivor;
                        }
                        return roles[0] != null;
                    });
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    throw new AssertionError("neither handed over:\nrestarted:\n" + started.output()
                            + "\nsurvivor:\n" + survivor.output(), e);
                }
                AgentProcess restarted = roles[0];
                AgentProcess old = roles[1];
                for (String r : resources) {
                    try {
                        await(r + " registered by the owner", START,
                                () -> restarted.output().contains("registered resource=" + r + " "));
                    } catch (org.awaitility.core.ConditionTimeoutException e) {
                        throw new AssertionError(r + " not registered by the owner:\n" + restarted.output()
                                + "\nthe other:\n" + old.output(), e);
                    }
                    kubelet.watch(r, Duration.ofSeconds(10));
                }
                phase = "restarted";
                int admittedBefore = admitted.get();
                try {
                    await("admissions through the restarted agent", Duration.ofSeconds(30),
                            () -> admitted.get() >= admittedBefore + 2);
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    // Both agents' logs: which of them kubelet's double ended up watching is the question (once,
                    // round 2 of a final run: SR-IOV listed no device for 30 s after the owner registered it).
                    throw new AssertionError("no admission through the restarted agent; last refusal: "
                            + lastRefusal.get() + "; shared held " + kubelet.held(SHARED).size() + ", lists "
                            + kubelet.deviceLists(SHARED).stream().map(List::size).toList() + "; sriov held "
                            + kubelet.held(SRIOV).size() + ", lists "
                            + kubelet.deviceLists(SRIOV).stream().map(List::size).toList() + "; admissions thread "
                            + java.util.Arrays.toString(loop.getStackTrace()).replace(", ", "\n  ")
                            + "\nrestarted:\n" + restarted.output() + "\nthe one it took over from:\n"
                            + old.output(), e);
                }
                stop.set(true);
                loop.join(Duration.ofSeconds(30).toMillis());
                notOfferedElsewhere(kubelet, false);
                assertThat(old.terminate(Duration.ofSeconds(30))).as("handed-over one's exit:\n%s", old.output())
                        .isZero();
                try {
                    kubelet.admit("ns", "after-" + round, "c", SHARED, 1);
                } catch (RuntimeException e) {
                    throw new AssertionError("no pod admitted once the handed-over one stopped (endpoint "
                            + kubelet.endpoint(SHARED) + "):\nowner:\n" + restarted.output() + "\nhanded over:\n"
                            + old.output() + "\nkilled:\n" + victim.output(), e);
                }
                serving = restarted;
                pod += 1000;
            }
            assertThat(serving.terminate(Duration.ofSeconds(15))).as("exit code:\n%s", serving.output()).isZero();
            phase = "stopped";
            Thread.sleep(300);
            sampling.set(false);
            sampler.join();
            System.out.printf("samples %s%n", samples);
            assertThat(violations).as("files of held devices missing (of %s samples)", samples).isEmpty();
            assertThat(samples.get("gap").get()).as("samples in the gaps").isPositive();
            assertThat(kubelet.held(SRIOV)).as("the run admitted VFs").isNotEmpty();
        }
    }

    /**
     * Admits pods {@code ns/p<first>}, {@code p<first+1>}, ... round-robin over {@code resources} until stopped;
     * each pod ends {@code endAfter} admissions later (0: pods run on).
     */
    private Thread admissions(KubeletDouble kubelet, List<String> resources, int first, AtomicInteger admitted,
                              AtomicBoolean stop, int endAfter) {
        Thread loop = new Thread(() -> {
            for (int i = first; !stop.get(); i++) {
                try {
                    kubelet.admit("ns", "p" + i, "c", resources.get(i % resources.size()), 1);
                    admitted.incrementAndGet();
                    if (endAfter > 0 && i - first >= endAfter) {
                        kubelet.remove("ns", "p" + (i - endAfter));   // pods end too: devices are released
                    }
                } catch (RuntimeException agentGoneOrNoneFree) {
                    // kubelet fails the pod; its book holds nothing for it
                    lastRefusal.set(agentGoneOrNoneFree.toString());
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "admissions");
        loop.setDaemon(true);
        loop.start();
        return loop;
    }

    /** Every held device's files, checked every 10 ms until {@code sampling} ends. */
    private Thread sampler(KubeletDouble kubelet) {
        Thread t = new Thread(() -> {
            while (sampling.get()) {
                String p = phase;
                try {
                    check(kubelet, p);
                    samples.get(p).incrementAndGet();
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                } catch (IOException | RuntimeException e) {
                    if (violations.size() < 20) {
                        violations.add(p + ": " + e);
                    }
                }
            }
        }, "sampler");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void check(KubeletDouble kubelet, String p) throws IOException {
        if (!kubelet.held(SHARED).isEmpty()) {
            requireSpec(p, SHARED, cdi.resolve("rdmanode.io-hca_hca_shared.json"), "hca_shared");
        }
        for (String resource : List.of(SRIOV, MOVED)) {
            String pool = resource.substring("rdma/".length());
            for (String vf : Set.copyOf(kubelet.held(resource))) {
                requireSpec(p, resource, cdi.resolve("rdmanode.io-vf_" + pool + ".json"), vf);
                Path info = devinfo.resolve("rdma-" + pool + "-" + vf + "-device.json");
                if (!Files.exists(info)) {
                    violation(p + ": device-info file of " + vf + " held under " + resource + " missing: " + info);
                }
            }
        }
    }

    private void requireSpec(String p, String resource, Path spec, String device) throws IOException {
        String json;
        try {
            json = Files.readString(spec);
        } catch (java.nio.file.NoSuchFileException e) {
            violation(p + ": CDI spec of held " + resource + " device " + device + " missing: " + spec);
            return;
        }
        if (!json.contains("\"name\":\"" + device + "\"")) {
            violation(p + ": CDI spec " + spec + " does not name held device " + device + ": " + json);
        }
    }

    private void violation(String what) {
        if (violations.size() < 20) {
            violations.add(what);
            System.out.println("VIOLATION " + what);
        }
    }

    /** A VF held under another resource is in no ListAndWatch list of the SR-IOV pools. */
    private void notOfferedElsewhere(KubeletDouble kubelet, boolean edited) {
        List<String> served = edited ? List.of(SRIOV, MOVED) : List.of(SRIOV);
        for (String resource : served) {
            for (String other : List.of(SRIOV, MOVED)) {
                if (other.equals(resource)) {
                    continue;
                }
                Set<String> heldThere = Set.copyOf(kubelet.held(other));
                if (heldThere.isEmpty()) {
                    continue;
                }
                assertThat(kubelet.deviceLists(resource)).as("ListAndWatch lists of %s while %s holds %s", resource,
                        other, heldThere).allSatisfy(list -> assertThat(list).doesNotContainAnyElementsOf(heldThere));
            }
        }
    }

    /** Removes the pod of one VF held under {@link #SRIOV}; returns the VF and its resource. */
    private Map.Entry<String, String> endOnePodHoldingAVf(KubeletDouble kubelet) {
        for (int i = 0; i < 4000; i++) {
            List<String> ids;
            String podName = "p" + i;
            // the double's admissions named pods p<i>; find one holding a VF of SRIOV via its book
            String uid = kubelet.podUid("ns", podName);
            if (uid == null) {
                continue;
            }
            Set<String> before = Set.copyOf(kubelet.held(SRIOV));
            kubelet.remove("ns", podName);
            Set<String> after = Set.copyOf(kubelet.held(SRIOV));
            ids = before.stream().filter(id -> !after.contains(id)).toList();
            if (!ids.isEmpty()) {
                return Map.entry(ids.get(0), SRIOV);
            }
        }
        throw new AssertionError("no pod holds a VF of " + SRIOV);
    }

    private AgentProcess start(KubeletDouble kubelet, boolean edited) throws Exception {
        phase = agents.isEmpty() ? "start" : "gap";
        Path config = dir.resolve(edited ? "edited.conf" : "agent.conf");
        Files.writeString(config, config(edited));
        List<String> resources = edited ? List.of(MOVED, SHARED, SRIOV) : List.of(SHARED, SRIOV);
        Map<String, Long> before = new TreeMap<>();
        resources.forEach(r -> before.put(r, kubelet.registrations(r)));
        long started = System.nanoTime();
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
        System.out.printf("start %d (%s): every resource registered %d ms after exec%n", agents.size(),
                edited ? "edited" : "plain", (System.nanoTime() - started) / 1_000_000);
        return agent;
    }

    private String config(boolean edited) {
        String moved = edited ? """
                  { name = sriov_moved, selectors { pfNames = ["ens2f0"] }, deviceInfoDir = "%s", cdi = true,
                    cdiSpecDir = "%s" }
                """.formatted(devinfo, cdi) : "";
        return """
                agent {
                  runtime { stateDir = "%1$s", log.level = info }
                  http { host = "127.0.0.1", port = 0 }
                }
                discovery { backend = sysfs, sysfsRoot = "%2$s/sys", devRoot = "%2$s/dev" }
                kubelet { pluginDir = "%3$s", registration = classic, podResourcesSocket = "%4$s" }
                deviceplugin.common { hostDevRoot = "%2$s/dev", cdiSpecDirs = ["%6$s"] }
                deviceplugin.shared.pools = [
                  { name = hca_shared, rdmaHcaMax = 100, selectors { deviceIDs = ["1017"] }, cdi = true,
                    cdiSpecDir = "%6$s" }
                ]
                deviceplugin.sriov.pools = [
                %7$s  { name = sriov_rdma, selectors { vendors = ["15b3"], isRdma = true }, deviceInfoDir = "%5$s",
                    cdi = true, cdiSpecDir = "%6$s" }
                ]
                """.formatted(state, host, pluginDir, podResources, devinfo, cdi, moved);
    }

    interface Check {
        boolean holds() throws Exception;
    }

    private static void await(String what, Duration atMost, Check check) {
        Awaitility.await(what).atMost(atMost).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                .ignoreExceptions().until(check::holds);
    }
}
