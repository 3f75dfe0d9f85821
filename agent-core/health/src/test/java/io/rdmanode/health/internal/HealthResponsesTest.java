// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.health.HealthCheck.Kind;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HealthResponsesTest {

    private final HealthResponses responses = new HealthResponses(
            new FixedHealthSources(new AgentInfo("1.2.3", Instant.now(), "17", 1)),
            new NamedWhiteboard<>("status section", StatusDocument.MEMBERS), Clock.systemUTC(), new WarnOnce(),
            Map::of);

    @Test
    void aCachedResultNobodyRefreshesAnyMoreFailsLiveness() {
        List<CheckResult> checks = List.of(new CheckResult("config", Kind.ALIVE, true, "revision 3"));
        long stale = System.nanoTime() - HealthResponses.STALE_AFTER.toNanos() - TimeUnit.SECONDS.toNanos(5);

        HealthResponses.Response fresh = responses.healthz(snapshot(System.nanoTime(), checks), false);
        HealthResponses.Response stuck = responses.healthz(snapshot(stale, checks), false);

        assertThat(fresh.code()).isEqualTo(200);
        assertThat(stuck.code()).isEqualTo(503);
        assertThat(stuck.body()).contains("[+]config ok: revision 3\n")
                .contains("[-]health-refresh failed: checks last refreshed 35 s ago: the refresh is stuck\n");
    }

    private static HealthCache.Snapshot snapshot(long nanos, List<CheckResult> checks) {
        return new HealthCache.Snapshot(nanos, checks, HealthReport.liveness(checks),
                HealthReport.readiness(checks, List.of()));
    }
}
