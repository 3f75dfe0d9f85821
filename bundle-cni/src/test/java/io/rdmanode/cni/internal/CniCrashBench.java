// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * ADD/DEL pairs through the shipped executable (env + stdin, as a runtime runs a plugin) against an agent JVM
 * ({@link CniCrashAgent}) that another thread SIGKILLs at random moments and starts again over the same state
 * directory and the same file-backed fake RDMA kernel. Several pods (real network namespaces) run pairs at
 * once, each on a VF a "device plugin" pool hands out exclusively. The runtime side retries as kubelet and the
 * CRI do: a failed ADD is followed by DEL until it succeeds and a new sandbox (new container ID); a DEL that
 * fails is repeated; error 11 (agent down) is retried after a short pause.
 *
 * <p>Checks: after every successful ADD, the state says ADDED and the device is in the pod (else lost state),
 * and CHECK agrees; at every kill, with the agent dead, every device in a pod namespace has a state file naming
 * it (else it leaked: nothing would return it); at the end no state is left, every device is back in the host,
 * each device moved as often as it returned and no move found its device already in the target.
 * Used by scripts/bench-cni-crash (main) and CniCrashProcessIT (a short run).
 */
public final class CniCrashBench {

    static final int VFS = 6;
    static final int PODS = 4;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NETWORK = "crash";

    static String pci(int vf) {
        return "0000:3b:02." + (vf + 1);
    }

    static String[] devices() {
        return IntStream.range(0, VFS).mapToObj(vf -> "mlx5_" + (10 + vf)).toArray(String[]::new);
    }

    static DeviceResolver resolver() {
        Map<String, List<String>> map = new HashMap<>();
        String[] devices = devices();
        for (int vf = 0; vf < VFS; vf++) {
            map.put(pci(vf), List.of(devices[vf]));
        }
        return new DeviceResolver() {
            @Override
            public Optional<List<String>> rdmaDevices(String pciAddress) {
                return Optional.ofNullable(map.get(pciAddress));
            }

            @Override
            public Optional<String> notReady() {
                return Optional.empty();
            }
        };
    }

    /** The figures of one run; {@link #ok()} when nothing leaked, was lost or moved twice. */
    record Result(int pairs, int kills, int killsMidCall, Map<String, Integer> killPoints, int cutCalls,
                  int addFailures, int delRetries, int checkRetries, int leakedAtKills, int leakedAtEnd,
                  int stateLeftAtEnd, int lost, int doubleMoves, int moves, int returns, int unexpected,
                  int strayTempFiles, List<String> problems, long millis, long medianRestartMillis) {

        boolean ok() {
            return strayTempFiles == 0 && leakedAtKills == 0 && leakedAtEnd == 0 && stateLeftAtEnd == 0 && lost == 0
                    && doubleMoves == 0
                    && moves == returns && unexpected == 0 && problems.isEmpty();
        }

        void print(PrintStream out, int maxDelayMs) {
            out.printf("%d ADD/DEL pairs over %d pods x %d VFs (shipped C client, env + stdin); agent JVM SIGKILLed %d"
                    + " times, each a random 0-%d ms after it was serving again%n", pairs, PODS, VFS, kills,
                    maxDelayMs);
            out.printf("  kills with a CNI call in flight: %d; calls cut mid-request (agent died holding them): %d%n",
                    killsMidCall, cutCalls);
            out.printf("  where the kills left ADD/DEL (state + fake kernel, agent dead): %s%n", killPoints);
            out.printf("  runtime follow-ups: %d failed ADDs -> DEL + new sandbox; %d DEL retries; %d CHECK retries%n",
                    addFailures, delRetries, checkRetries);
            out.printf("  leaked devices: %d (in a pod netns with no state at a kill: %d; not home at the end: %d;"
                    + " state files left: %d)%n", leakedAtKills + leakedAtEnd + stateLeftAtEnd, leakedAtKills,
                    leakedAtEnd, stateLeftAtEnd);
            out.printf("  lost state: %d; double moves: %d; moves %d = returns %d: %s; unexpected CNI errors: %d%n",
                    lost, doubleMoves, moves, returns, moves == returns, unexpected);
            out.printf("  temp files of cut state writes left in the state dir at the end: %d%n", strayTempFiles);
            out.printf("  time: %.1f s (agent restart to serving: median %d ms)%n", millis / 1000.0,
                    medianRestartMillis);
            problems.stream().limit(20).forEach(p -> out.println("  PROBLEM: " + p));
            out.println(ok() ? "OK: 0 leaked, 0 lost state, 0 double moves" : "FAILED");
        }
    }

    private final int pairs;
    private final int maxDelayMs;
    private final int maxKills;
    private final PrintStream log;
    private final Path root;
    private final Path client;
    private final FakeRdmaKernel kernel;
    private final List<String> namespaces = new ArrayList<>();
    private final AtomicInteger nextPair = new AtomicInteger();
    private final AtomicInteger done = new AtomicInteger();
    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicInteger cut = new AtomicInteger();
    private final AtomicInteger addFailures = new AtomicInteger();
    private final AtomicInteger delRetries = new AtomicInteger();
    private final AtomicInteger checkRetries = new AtomicInteger();
    private final AtomicInteger lost = new AtomicInteger();
    private final AtomicInteger unexpected = new AtomicInteger();
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private final BlockingQueue<Integer> freeVfs = new ArrayBlockingQueue<>(VFS);
    private final Map<String, Integer> killPoints = new LinkedHashMap<>();
    private final List<Long> restarts = new ArrayList<>();
    private volatile boolean finished;
    private boolean cleaned;
    private int kills;
    private int killsMidCall;
    private int leakedAtKills;
    private int strayTemp;
    private Process agent;

    private CniCrashBench(int pairs, int maxDelayMs, int maxKills, PrintStream log) throws IOException {
        this.pairs = pairs;
        this.maxDelayMs = maxDelayMs;
        this.maxKills = maxKills;
        this.log = log;
        this.root = Files.createTempDirectory(Path.of("/tmp"), "rdt-cc-");
        this.client = root.resolve("bin/rdma");
        this.kernel = FakeRdmaKernel.persistent(root.resolve("kernel"), devices());
        List<Integer> vfs = new ArrayList<>(IntStream.range(0, VFS).boxed().toList());
        Collections.shuffle(vfs);
        freeVfs.addAll(vfs);
    }

    public static void main(String[] args) throws Exception {
        int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int maxDelay = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        Result r = run(pairs, maxDelay, Integer.MAX_VALUE, System.out);
        r.print(System.out, maxDelay);
        System.exit(r.ok() ? 0 : 1);
    }

    /** Kills stop after {@code maxKills} (a bound on the run time of the IT on a loaded machine). */
    static Result run(int pairs, int maxDelayMs, int maxKills, PrintStream log) throws Exception {
        CniCrashBench b = new CniCrashBench(pairs, maxDelayMs, maxKills, log);
        Thread onExit = new Thread(b::cleanUp, "bench-cni-crash-cleanup"); // Ctrl-C: no namespaces left behind
        Runtime.getRuntime().addShutdownHook(onExit);
        try {
            return b.run();
        } finally {
            b.cleanUp();
            Runtime.getRuntime().removeShutdownHook(onExit);
        }
    }

    private Result run() throws Exception {
        for (int i = 0; i < PODS; i++) {
            String ns = Netns.unique("rdt-cc" + i + "-");
            if (Netns.ip("netns", "add", ns) != 0) {
                throw new IllegalStateException("ip netns add " + ns + " failed (needs root)");
            }
            namespaces.add(ns);
        }
        long t0 = System.nanoTime();
        startAgent();
        List<Thread> pods = new ArrayList<>();
        for (int i = 0; i < PODS; i++) {
            int pod = i;
            Thread t = new Thread(() -> pod(pod), "pod-" + i);
            t.start();
            pods.add(t);
        }
        Thread killer = new Thread(this::killLoop, "killer");
        killer.start();
        for (Thread t : pods) {
            t.join();
        }
        finished = true;
        killer.interrupt();
        killer.join();
        long millis = (System.nanoTime() - t0) / 1_000_000;
        agent.destroy(); // SIGTERM: a clean stop
        agent.waitFor(30, TimeUnit.SECONDS);

        int stateLeft = stateFiles().size();
        try (Stream<Path> files = Files.list(root.resolve("state"))) {
            strayTemp = (int) files.filter(f -> f.getFileName().toString().endsWith(".tmp")).count();
        }
        stateFiles().forEach(a -> problems.add("state left at the end: " + a));
        int leakedAtEnd = 0;
        int moves = 0;
        int returns = 0;
        int doubles = 0;
        for (String d : devices()) {
            FakeRdmaKernel.Placement p = kernel.placement(d);
            if (p.netns() != null) {
                leakedAtEnd++;
                problems.add(d + " is still in " + p.netns() + " at the end");
            }
            if (p.moves() != p.returns()) {
                problems.add(d + " moved " + p.moves() + " times but returned " + p.returns() + " times");
            }
            moves += p.moves();
            returns += p.returns();
            doubles += p.doubleMoves();
        }
        List<Long> sorted = restarts.stream().sorted().toList();
        return new Result(done.get(), kills, killsMidCall, killPoints, cut.get(), addFailures.get(), delRetries.get(),
                checkRetries.get(), leakedAtKills, leakedAtEnd, stateLeft, lost.get(), doubles, moves, returns,
                unexpected.get(), strayTemp, List.copyOf(problems), millis,
                sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2));
    }

    // ---- the agent and its killer ----

    private void startAgent() throws Exception {
        Path ready = root.resolve("ready");
        Files.deleteIfExists(ready);
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        long t0 = System.nanoTime();
        agent = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
                CniCrashAgent.class.getName(), root.toString(), ready.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(root.resolve("agent.log")
                        .toFile())).start();
        try {
            // An exited agent ends the wait at once (the condition is true); the check below tells which.
            Awaitility.await("agent ready").atMost(Duration.ofSeconds(120)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(5)).until(() -> Files.exists(ready) || !agent.isAlive());
        } catch (ConditionTimeoutException late) {
            // reported below
        }
        if (!Files.exists(ready)) {
            agent.destroyForcibly();
            throw new IllegalStateException("the agent did not start (exit " + (agent.isAlive() ? "-" :
                    agent.exitValue()) + "); see " + root.resolve("agent.log") + ":\n"
                    + Files.readString(root.resolve("agent.log")));
        }
        synchronized (restarts) {
            restarts.add((System.nanoTime() - t0) / 1_000_000);
        }
    }

    private void killLoop() {
        try {
            while (!finished && kills < maxKills) {
                Thread.sleep(ThreadLocalRandom.current().nextInt(maxDelayMs + 1));
                if (finished) {
                    return;
                }
                boolean busy = inflight.get() > 0;
                agent.destroyForcibly(); // SIGKILL
                agent.waitFor();
                kills++;
                if (busy) {
                    killsMidCall++;
                }
                inspectAfterKill();
                startAgent();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            problems.add("killer: " + e);
            e.printStackTrace(log);
            System.exit(3);
        }
    }

    /** With the agent dead nothing changes: classify where ADD/DEL stopped and look for orphaned devices. */
    private void inspectAfterKill() throws IOException {
        List<Attachment> state = stateFiles();
        String point = "no half-done step in the state";
        for (Attachment a : state) {
            boolean moved = a.netns().equals(kernel.placement(a.rdmaDevice()).netns());
            String p = a.phase() == Attachment.Phase.ADDING
                    ? (moved ? "ADD moved, result not persisted" : "ADD intent persisted, not moved")
                    : (moved ? null : "DEL returned, state not dropped");
            if (p != null) {
                killPoints.merge(p, 1, Integer::sum);
                point = null;
            }
        }
        if (point != null) {
            killPoints.merge(point, 1, Integer::sum);
        }
        for (String d : devices()) {
            FakeRdmaKernel.Placement p = kernel.placement(d);
            if (p.netns() != null && state.stream().noneMatch(a -> a.rdmaDevice().equals(d)
                    && a.netns().equals(p.netns()))) {
                leakedAtKills++;
                problems.add("kill " + kills + ": " + d + " is in " + p.netns() + " with no state naming it");
            }
        }
    }

    private List<Attachment> stateFiles() throws IOException {
        List<Attachment> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(root.resolve("state"))) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".json")).toList()) {
                try {
                    out.add(Attachment.fromJson(JSON.readTree(f.toFile())));
                } catch (IOException e) {
                    // deleted between list and read
                }
            }
        }
        return out;
    }

    // ---- the runtime side ----

    private record Call(int exit, int code, String stdout) {
    }

    private Call call(String command, String pod, String cid, int vf) throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", cid);
        env.put("CNI_IFNAME", "net1");
        env.put("CNI_NETNS", Netns.path(pod).toString());
        env.put("CNI_PATH", root.resolve("bin").toString());
        env.put("CNI_ARGS", "IgnoreUnknown=1;K8S_POD_NAMESPACE=crash;K8S_POD_NAME=" + pod);
        String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"" + NETWORK + "\",\"type\":\"rdma\",\"deviceID\":\""
                + pci(vf) + "\",\"prevResult\":{}}";
        inflight.incrementAndGet();
        Netns.Exec e;
        try {
            e = Netns.exec(client, env, conf);
        } finally {
            inflight.decrementAndGet();
        }
        int code = 0;
        if (e.exit() != 0) {
            JsonNode n = JSON.readTree(e.stdout());
            code = n.path("code").asInt();
            String msg = n.path("msg").asText();
            if (code == CniError.TRY_AGAIN && (msg.contains("no answer") || msg.contains("lost the connection"))) {
                cut.incrementAndGet();
            }
        }
        return new Call(e.exit(), code, e.stdout());
    }

    private static void pause() throws InterruptedException {
        Thread.sleep(5 + ThreadLocalRandom.current().nextInt(10));
    }

    private void pod(int index) {
        String pod = namespaces.get(index);
        try {
            int pair;
            while ((pair = nextPair.getAndIncrement()) < pairs) {
                int vf = freeVfs.take();
                try {
                    pair(pod, pair, vf);
                } finally {
                    freeVfs.put(vf);
                }
                int n = done.incrementAndGet();
                if (n % 100 == 0) {
                    log.printf("  %d pairs, %d kills%n", n, kills);
                }
            }
        } catch (Exception e) {
            problems.add(pod + ": " + e);
            e.printStackTrace(log);
        }
    }

    /**
     * Sandboxes until one ADD succeeds, as kubelet keeps retrying a pod: unbounded while the answer is "agent
     * down" (the kills cause that; with 0-50 ms between restart and kill an ADD can take hundreds of attempts),
     * given up after 20 other errors, each of which is already a failure of the run.
     */
    private void pair(String pod, int pair, int vf) throws Exception {
        int otherErrors = 0;
        for (int attempt = 0; otherErrors < 20; attempt++) {
            String cid = "p" + pair + "a" + attempt;
            Call add = call("ADD", pod, cid, vf);
            if (add.exit() == 0) {
                verifyAttached(pod, cid, vf);
                del(pod, cid, vf);
                return;
            }
            addFailures.incrementAndGet();
            if (add.code() != CniError.TRY_AGAIN) {
                unexpected("ADD " + cid + " on " + pci(vf), add);
                otherErrors++;
            }
            del(pod, cid, vf); // the CRI tears the failed sandbox's network down, kubelet retries with a new one
            pause();
        }
        problems.add("pair " + pair + " never succeeded");
    }

    /** The ADD answered success: the state must say so and the device must be in the pod; CHECK agrees. */
    private void verifyAttached(String pod, String cid, int vf) throws Exception {
        String device = devices()[vf];
        Path f = root.resolve("state").resolve(Attachment.key(NETWORK, cid, "net1") + ".json");
        String where = kernel.placement(device).netns();
        Attachment a = Files.exists(f) ? Attachment.fromJson(JSON.readTree(f.toFile())) : null;
        if (a == null || a.phase() != Attachment.Phase.ADDED || !Netns.path(pod).toString().equals(where)) {
            lost.incrementAndGet();
            problems.add("after ADD " + cid + " succeeded: state " + a + ", " + device + " in " + where);
        }
        while (true) {
            Call check = call("CHECK", pod, cid, vf);
            if (check.exit() == 0) {
                return;
            }
            if (check.code() != CniError.TRY_AGAIN) {
                lost.incrementAndGet();
                problems.add("CHECK " + cid + ": " + check.stdout());
                return;
            }
            checkRetries.incrementAndGet();
            pause();
        }
    }

    private void del(String pod, String cid, int vf) throws Exception {
        int otherErrors = 0;
        while (otherErrors < 20) { // "agent down" is retried as long as it lasts, as kubelet does
            Call del = call("DEL", pod, cid, vf);
            if (del.exit() == 0) {
                return;
            }
            if (del.code() != CniError.TRY_AGAIN) {
                unexpected("DEL " + cid, del);
                otherErrors++;
            }
            delRetries.incrementAndGet();
            pause();
        }
        problems.add("DEL " + cid + " never succeeded");
    }

    private void unexpected(String what, Call c) {
        unexpected.incrementAndGet();
        problems.add(what + ": " + c.stdout().replaceAll("\\s+", " "));
    }

    private synchronized void cleanUp() {
        if (cleaned) {
            return;
        }
        cleaned = true;
        if (agent != null) {
            agent.destroyForcibly();
        }
        for (String ns : namespaces) {
            try {
                Netns.ip("netns", "del", ns);
            } catch (Exception e) {
                log.println("cannot delete netns " + ns + ": " + e);
            }
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            log.println("cannot delete " + root + ": " + e);
        }
    }
}
