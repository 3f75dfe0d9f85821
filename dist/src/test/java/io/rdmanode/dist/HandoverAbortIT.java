// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.kubelet.testing.KubeletDouble;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Issue 27, a successor that dies (or stops, round 3) half-way through its takeover (a reload whose new instance is OOM-killed, or
 * crashes on a bad bundle): it has taken two of the predecessor's doors and registered every pool with kubelet, but
 * has not said READY (its configuration turns off the bundle of the third door, so that door stays pending and the
 * takeover waits). SIGKILL. The predecessor is still the state directory's writer: it accepts on its doors again
 * (the calls that waited in their backlogs are answered; only a call the successor itself had accepted dies with
 * it, a connection reset), registers every pool with kubelet again
 * (kubelet's endpoints were the dead instance's), and allocates. Two rounds, so that each of the HTTP, CNI and
 * Freeflow doors is taken back; then a successor that lives takes every door over again (a door taken back must be
 * lendable: the CNI one was not, operator probe). Nothing supervises a reload's successor: without this the node served nothing
 * until someone restarted the agent.
 */
class HandoverAbortIT {

    @Test
    void aSuccessorKilledBeforeItIsReadyLeavesThePredecessorServingEverything() throws Exception {
        HandoverNode node = HandoverNode.prepare("hoa");
        Path dir = node.dir();
        Path home = node.home();
        Path state = node.state();
        String demo = node.demo();
        Path config = node.config();
        List<String> resources = HandoverIT.RESOURCES;

        try (KubeletDouble kubelet = KubeletDouble.start(node.pluginDir(), state.resolve("pod-resources/kubelet.sock"));
             AgentProcess old = AgentProcess.start(home, state, Map.of(), "--config", config.toString())) {
            old.awaitReady(Duration.ofSeconds(60));
            resources.forEach(r -> kubelet.awaitRegistrations(r, 1, Duration.ofSeconds(30)));
            try (HandoverLoad load = new HandoverLoad(node.port(), state.resolve("cni/bin/rdma"),
                    state.resolve("freeflow/ffrouter"))) {
                Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> load.cniOk.get() > 0
                        && load.freeflowOk.get() > 0 && load.healthOk.get() > 0);
                // Round 1 leaves the Freeflow door pending (HTTP and CNI taken), round 2 the CNI door (HTTP and
                // Freeflow taken): every door is taken back once.
                String[][] rounds = {{"freeflow", "http", "cni"}, {"cni", "http", "freeflow"}};
                for (int round = 0; round < rounds.length; round++) {
                    Path stalled = dir.resolve("stalled-" + round + ".conf");
                    Files.writeString(stalled, demo + "\nagent.bundles." + rounds[round][0] + ".enabled = false\n"
                            + "agent.handover.readyTimeout = 600s\n");
                    abortedTakeover(round + 1, home, state, stalled, kubelet, old, load, false, rounds[round][1],
                            rounds[round][2]);
                }
                // Round 3: the successor is SIGSTOPped instead (a wedged JVM alike). Nothing ends it but the
                // predecessor, once it is silent 10 s past the READY it promised (its ready timeout).
                Path stopped = dir.resolve("stalled-stop.conf");
                Files.writeString(stopped, demo + "\nagent.bundles.freeflow.enabled = false\n"
                        + "agent.handover.readyTimeout = " + STOPPED_READY_TIMEOUT.toSeconds() + "s\n");
                abortedTakeover(3, home, state, stopped, kubelet, old, load, true, "http", "cni");
                String base = Files.readString(state.resolve("http.url")).trim();
                Awaitility.await("ready").atMost(Duration.ofSeconds(10))
                        .until(() -> AgentProcess.status(base + "/readyz") == 200);
                assertThat(old.output()).doesNotContain("handed over to a successor:");

                // Then a successor that lives takes every door the predecessor took back (each lent a second time)
                // and the predecessor stops: nothing fails, the successor serves everything.
                try (AgentProcess successor = AgentProcess.start(home, state, Map.of(), "--config",
                        config.toString())) {
                    awaitLog(successor, "took over from predecessor pid=" + old.pid());
                    for (String door : List.of("http", "cni", "freeflow")) {
                        assertThat(successor.output()).contains("took door " + door);
                    }
                    load.reconnectFreeflow();
                    assertThat(old.terminate(Duration.ofSeconds(30))).as(old.output()).isZero();
                    awaitAnswers(load, "the successor serves every door", 4, Duration.ofSeconds(15));
                    assertThat(load.failures).as(successor.output()).isEmpty();
                    assertThat(old.output()).doesNotContain("cannot be lent");
                    assertThat(successor.output()).doesNotContain("binding anew");
                    assertThat(successor.terminate(Duration.ofSeconds(30))).as(successor.output()).isZero();
                }
            }
        } catch (Throwable t) {
            try (Stream<Path> logs = Files.list(home)) {
                for (Path log : logs.filter(p -> p.getFileName().toString().endsWith(".log")).toList()) {
                    System.out.println("==== " + log + "\n" + Files.readString(log));
                }
            }
            throw t;
        } finally {
            node.close();
        }
    }

    /** The stopped successor's ready timeout: long enough for it to take its doors and register first, on CI. */
    private static final Duration STOPPED_READY_TIMEOUT = Duration.ofSeconds(20);

    /**
     * A successor takes {@code doors}, registers every pool and answers; SIGKILL (or, with {@code stop}, SIGSTOP,
     * after which the predecessor kills it); the predecessor serves every door again and registers every pool
     * again (the kubelet double's endpoint is its socket), and allocates.
     */
    private static void abortedTakeover(int round, Path home, Path state, Path config, KubeletDouble kubelet,
                                        AgentProcess old, HandoverLoad load, boolean stop, String... doors)
            throws Exception {
        List<String> resources = HandoverIT.RESOURCES;
        List<Long> registrations = resources.stream().map(kubelet::registrations).toList();
        long killed;
        try (AgentProcess successor = AgentProcess.start(home, state, Map.of(), "--config", config.toString())) {
            for (String door : doors) {
                awaitLog(successor, "took door " + door);
            }
            for (int i = 0; i < resources.size(); i++) {
                kubelet.awaitRegistrations(resources.get(i), registrations.get(i) + 1, Duration.ofSeconds(60));
            }
            Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> resources.stream().allMatch(r -> endpointOf(successor, kubelet, r)));
            // The tenant stays connected to the predecessor (a tenant of the successor would die with it).
            awaitAnswers(load, "the successor answers", 3, Duration.ofSeconds(10));
            assertThat(load.failures).as("failed calls before the kill").isEmpty();
            if (stop) {
                long stoppedAt = System.nanoTime();
                assertThat(new ProcessBuilder("sh", "-c", "kill -STOP " + successor.pid()).start().waitFor()).isZero();
                assertThat(successor.awaitExit(STOPPED_READY_TIMEOUT.plusSeconds(40))).as("SIGKILL")
                        .isEqualTo(128 + 9);
                killed = System.nanoTime();
                assertThat(old.output()).contains("pid=" + successor.pid() + " promised READY within "
                        + STOPPED_READY_TIMEOUT.toMillis() + " ms");
                // Its lent doors were unserved while it was stopped: calls to them timed out meanwhile, the bound
                // being the promise and the grace. Only what follows the kill counts.
                System.out.printf("HandoverAbortIT round %d: the successor stopped %d ms before the predecessor"
                        + " killed it; calls that failed meanwhile: %d%n", round,
                        TimeUnit.NANOSECONDS.toMillis(killed - stoppedAt), load.failures.size());
                load.failures.clear();
            } else {
                successor.kill();
                killed = System.nanoTime();
            }
        }
        load.reconnectFreeflow();               // a new tenant connection: the predecessor's again
        awaitAnswers(load, "the predecessor answers on its doors again", 4, Duration.ofSeconds(15));
        long doorsBack = System.nanoTime();
        for (int i = 0; i < resources.size(); i++) {
            kubelet.awaitRegistrations(resources.get(i), registrations.get(i) + 2, Duration.ofSeconds(30));
        }
        Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> resources.stream().allMatch(r -> endpointOf(old, kubelet, r)));
        long registered = System.nanoTime();
        // A call the successor had accepted when it was killed dies with it (its connection reset): at most one per
        // loop. None may have waited unanswered (a timeout) or found a door unbound (refused).
        List<String> inKilled = List.copyOf(load.failures);
        load.failures.clear();
        if (!stop) {                            // calls that waited out the stop may time out just after the kill
            assertThat(inKilled).as(old.output()).allSatisfy(f -> assertThat(f)
                    .doesNotContainIgnoringCase("timed out").doesNotContainIgnoringCase("refused"));
            for (String loop : List.of("healthz:", "cni VERSION:", "freeflow:")) {
                assertThat(inKilled.stream().filter(f -> f.startsWith(loop))).as(loop + " " + inKilled)
                        .hasSizeLessThan(2);
            }
        }
        for (String resource : resources) {
            assertThat(kubelet.admit("default", "round" + round + "-" + resource.replace('/', '-'), "c", resource, 1))
                    .as(resource).hasSize(1);
        }
        assertThat(old.output()).contains("took its doors back");
        System.out.printf("HandoverAbortIT round %d: successor %s before READY with doors %s taken; the"
                + " predecessor answered on every door again %d ms after the kill, every pool registered again at"
                + " +%d ms; /healthz %d, CNI VERSION %d, Freeflow %d calls answered so far; calls that died with the"
                + " successor: %s%n", round, stop ? "SIGSTOPped (then killed by the predecessor)" : "SIGKILLed",
                List.of(doors), TimeUnit.NANOSECONDS.toMillis(doorsBack - killed),
                TimeUnit.NANOSECONDS.toMillis(registered - killed), load.healthOk.get(), load.cniOk.get(),
                load.freeflowOk.get(), inKilled);
    }

    /** Waits until each of the /healthz, CNI and Freeflow loops has answered {@code more} more calls. */
    private static void awaitAnswers(HandoverLoad load, String what, int more, Duration within) {
        long health = load.healthOk.get();
        long cni = load.cniOk.get();
        long freeflow = load.freeflowOk.get();
        Awaitility.await(what).atMost(within).until(() -> load.healthOk.get() >= health + more
                && load.cniOk.get() >= cni + more && load.freeflowOk.get() >= freeflow + more);
    }

    /** kubelet's endpoint for {@code resource} is a socket {@code agent} logged as its own. */
    private static boolean endpointOf(AgentProcess agent, KubeletDouble kubelet, String resource) {
        try {
            return kubelet.hasEndpoint(resource)
                    && agent.output().contains("endpoint=" + kubelet.endpoint(resource));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void awaitLog(AgentProcess agent, String text) {
        Awaitility.await(text).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10))
                .until(() -> agent.output().contains(text));
    }
}
