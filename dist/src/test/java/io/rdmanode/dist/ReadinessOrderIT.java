// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8, item 15: {@code /readyz} says 200 only when every enabled bundle runs, so that Prometheus (or a
 * readiness-gated Service) never finds {@code /metrics} missing once the agent said it is ready. Polls both
 * concurrently from the first moment the HTTP port is known, over several starts of the real distribution.
 */
class ReadinessOrderIT {

    private static final int STARTS = 3;

    @TempDir
    Path temp;

    @Test
    void metricsAnswersFromTheMomentReadyzFirstSaysReady() throws Exception {
        for (int start = 0; start < STARTS; start++) {
            Path home = temp.resolve("home-" + start);
            AgentProcessIT.copyTree(AgentProcessIT.DIST, home);
            Path state = temp.resolve("state-" + start);
            Path config = temp.resolve("agent-" + start + ".conf");
            Files.writeString(config, """
                    agent {
                      runtime { stateDir = "%s" }
                      http.port = 0
                    }
                    """.formatted(state));
            try (AgentProcess agent = AgentProcess.start(home, state, Map.of(), "--config", config.toString())) {
                String base = awaitUrl(state, agent);
                AtomicLong firstReadyDone = new AtomicLong(Long.MAX_VALUE);
                List<String> violations = new CopyOnWriteArrayList<>();
                AtomicLong metricsOk = new AtomicLong();
                Thread readyz = poll(() -> {
                    if (AgentProcess.status(base + "/readyz") == 200) {
                        firstReadyDone.compareAndSet(Long.MAX_VALUE, System.nanoTime());
                    }
                });
                Thread metrics = poll(() -> {
                    long sent = System.nanoTime();
                    int code = AgentProcess.status(base + "/metrics");
                    if (Thread.currentThread().isInterrupted()) {
                        return;                                   // stopped mid-request: no answer of the agent
                    }
                    if (code == 200) {
                        metricsOk.incrementAndGet();
                    } else if (sent > firstReadyDone.get()) {
                        violations.add("/metrics answered " + code + " "
                                + Duration.ofNanos(sent - firstReadyDone.get()).toMillis() + " ms after /readyz said 200");
                    }
                });
                Awaitility.await("agent ready").atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(10)).until(() -> firstReadyDone.get() != Long.MAX_VALUE);
                // Keep scraping after ready until a good number of scrapes was sent after /readyz said 200.
                long okAtReady = metricsOk.get();
                Awaitility.await("200 scrapes after ready").atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(10)).until(() -> metricsOk.get() >= okAtReady + 200);
                readyz.interrupt();
                metrics.interrupt();
                readyz.join();
                metrics.join();
                assertThat(firstReadyDone.get()).as("agent ready:\n%s", agent.output()).isNotEqualTo(Long.MAX_VALUE);
                assertThat(violations).as("start %d", start).isEmpty();
                assertThat(metricsOk.get()).isPositive();
            }
        }
    }

    private static String awaitUrl(Path state, AgentProcess agent) throws Exception {
        Path url = state.resolve("http.url");
        try {
            return Awaitility.await("http.url written").atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(2))
                    .until(() -> Files.isRegularFile(url) ? Files.readString(url).trim() : "", base -> !base.isEmpty());
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no http.url within 60 s:\n" + agent.output(), e);
        }
    }

    private static Thread poll(Runnable request) {
        Thread t = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                request.run();
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

}
