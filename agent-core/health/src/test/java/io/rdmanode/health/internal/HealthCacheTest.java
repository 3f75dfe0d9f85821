// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The cached health result follows a change without waiting out the refresh interval: here the interval is a
 * minute, so each readiness change seen within the awaited bound came from the fast refreshes while not ready or
 * from {@link HealthCache#refreshSoon()}.
 */
class HealthCacheTest {

    private static final Duration A_MINUTE = Duration.ofMinutes(1);
    private static final Duration SEEN_WITHIN = Duration.ofSeconds(5);

    @Test
    void aCheckThatBecomesReadyIsSeenWithoutWaitingForTheInterval() {
        FixedHealthSources sources = new FixedHealthSources(AgentInfo.of("1.0", Instant.now().toString(), Instant.now()));
        FakeCheck kubelet = new FakeCheck("kubelet", HealthCheck.Kind.READY,
                () -> HealthStatus.waiting("waiting for kubelet"));
        sources.checks.add(kubelet);
        try (HealthCache cache = new HealthCache(sources, Duration.ofSeconds(2), A_MINUTE, new WarnOnce())) {
            await().atMost(SEEN_WITHIN).until(() -> cache.last() != null);
            assertFalse(cache.last().readiness().ok());

            kubelet.answer(HealthStatus.ok("registered"));           // no event: only the fast refreshes see it

            await().atMost(SEEN_WITHIN).until(() -> cache.last().readiness().ok());
        }
    }

    @Test
    void aReadyAgentRefreshesAtItsIntervalUntilToldSomethingChanged() throws Exception {
        FixedHealthSources sources = new FixedHealthSources(AgentInfo.of("1.0", Instant.now().toString(), Instant.now()));
        AtomicInteger runs = new AtomicInteger();
        FakeCheck startup = new FakeCheck("startup", HealthCheck.Kind.READY, () -> {
            runs.incrementAndGet();
            return HealthStatus.ok("started");
        });
        sources.checks.add(startup);
        try (HealthCache cache = new HealthCache(sources, Duration.ofSeconds(2), A_MINUTE, new WarnOnce())) {
            await().atMost(SEEN_WITHIN).until(() -> cache.last() != null && cache.last().readiness().ok());
            int afterFirst = runs.get();
            Thread.sleep(300);                                        // ready: no refresh before the minute
            assertTrue(runs.get() == afterFirst, "refreshed " + (runs.get() - afterFirst) + " times while ready");

            startup.answer(HealthStatus.failing("enabled but not active yet: io.rdmanode.cni (STARTING)"));
            cache.refreshSoon();                                     // a bundle event, say

            await().atMost(SEEN_WITHIN).until(() -> !cache.last().readiness().ok());
        }
    }
}
