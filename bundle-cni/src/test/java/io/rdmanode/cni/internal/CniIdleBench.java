// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * For scripts/bench-cni-idle: ADD latency through the shipped executable (exec, env + stdin, to its result) with
 * 1,000 idle connections open on the CNI socket and with none, in interleaved rounds of the same run (so machine
 * load hits both alike). The CNI component runs in a JVM of its own with the fake RDMA kernel and a real network
 * namespace; a python process holds the idle connections; every ADD is followed by a DEL (not timed). Args:
 * rounds (default 5), ADDs per round (default 40).
 */
public final class CniIdleBench {

    private CniIdleBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("agent")) {
            agent(Path.of(args[1]));
            return;
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        Path work = Files.createTempDirectory(Path.of("/tmp"), "rdt-idle-");
        Path ready = work.resolve("ready");
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        Process agentProcess = new ProcessBuilder(java, "-XX:+UseSerialGC", "-Xmx64m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
                CniIdleBench.class.getName(), "agent", ready.toString()).inheritIO().start();
        try {
            Awaitility.await("agent ready").atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> Files.exists(ready) || !agentProcess.isAlive());
            String[] fields = Files.readString(ready).trim().split(" ");
            Path client = Path.of(fields[0]);
            Map<String, String> env = new HashMap<>(Map.of("CNI_CONTAINERID", "bench1", "CNI_IFNAME", "net1",
                    "CNI_NETNS", fields[1], "CNI_PATH", client.getParent().toString()));
            String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"bench\",\"type\":\"rdma\","
                    + "\"deviceID\":\"0000:3b:02.1\",\"prevResult\":{}}";
            pairs(client, env, conf, 20, null); // warm-up
            List<Double> none = new ArrayList<>();
            List<Double> idle = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                pairs(client, env, conf, perRound, none);
                // The idle connections come from another process, as they would: this one execs the client, and
                // a process holding 1,000 more descriptors spawns more slowly, which is not what is measured.
                Process holder = new ProcessBuilder("python3", "-c", "import socket, sys\n"
                        + "s = [socket.socket(socket.AF_UNIX) for _ in range(1000)]\n"
                        + "[c.connect(sys.argv[1]) for c in s]\nprint('ready', flush=True)\nsys.stdin.read()\n",
                        fields[2]).redirectError(ProcessBuilder.Redirect.INHERIT).start();
                if (!new String(holder.getInputStream().readNBytes(5), StandardCharsets.US_ASCII)
                        .equals("ready")) {
                    throw new IllegalStateException("the idle-connection holder did not connect");
                }
                pairs(client, env, conf, perRound, idle);
                holder.getOutputStream().close();
                holder.waitFor();
            }
            double a = median(none);
            double b = median(idle);
            System.out.printf("ADD exec-to-result through the shipped executable, %d ADDs each, %d interleaved"
                    + " rounds (agent in its own JVM):%n", none.size(), rounds);
            System.out.printf("  no idle connections:     median %6.2f ms  p90 %6.2f ms%n", a, p90(none));
            System.out.printf("  1,000 idle connections:  median %6.2f ms  p90 %6.2f ms%n", b, p90(idle));
            System.out.printf("  ratio (1,000 idle / none, medians): %.2f%n", b / a);
        } finally {
            agentProcess.destroy();
            agentProcess.waitFor();
            Files.deleteIfExists(ready);
            Files.deleteIfExists(work);
        }
    }

    /** The agent side: the CNI component, idle connections never cut during a run; "client netns socket" to ready. */
    private static void agent(Path ready) throws Exception {
        String ns = Netns.unique("rdt-idle-");
        if (Netns.ip("netns", "add", ns) != 0) {
            throw new IllegalStateException("ip netns add " + ns + " failed (needs root)");
        }
        TestAgent agent = new TestAgent();
        agent.settings = Map.of("requestTimeout", 600_000L, "maxConnections", 2_048);
        agent.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                agent.close();
                Netns.ip("netns", "del", ns);
            } catch (Exception e) {
                e.printStackTrace();
            }
        }));
        Files.writeString(ready, agent.client() + " " + Netns.path(ns) + " " + agent.socket() + "\n");
        Thread.currentThread().join();
    }

    private static void pairs(Path client, Map<String, String> env, String conf, int n,
                              List<Double> into)
            throws Exception {
        for (int i = 0; i < n; i++) {
            env.put("CNI_COMMAND", "ADD");
            long t0 = System.nanoTime();
            Netns.Exec add = Netns.exec(client, env, conf);
            long t1 = System.nanoTime();
            if (add.exit() != 0) {
                throw new IllegalStateException("ADD failed: " + add.stdout());
            }
            if (into != null) {
                into.add((t1 - t0) / 1e6);
            }
            env.put("CNI_COMMAND", "DEL");
            Netns.Exec del = Netns.exec(client, env, conf);
            if (del.exit() != 0) {
                throw new IllegalStateException("DEL failed: " + del.stdout());
            }
        }
    }

    private static double median(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private static double p90(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a[Math.min(a.length - 1, (int) Math.ceil(a.length * 0.9) - 1)];
    }
}
