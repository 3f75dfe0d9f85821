// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A tenant that truncates its own shared-memory file under the router's mapping ({@link ShmFaults}). Before, the
 * poller's next scan faulted and its thread died (every tenant's fast path hung, /healthz said "poller stuck"), or
 * the fault surfaced in an unmap, where the JDK's Cleaner ended the agent. The tenant is a child JVM: the router
 * tells tenants apart by pid.
 */
class TruncatedShmTest {
    RouterFixture fx;
    Process attacker;

    @AfterEach
    void close() throws Exception {
        if (attacker != null) {
            attacker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void a_tenant_that_truncates_its_mailbox_is_reclaimed_and_the_poller_serves_the_others() throws Exception {
        fx = new RouterFixture();
        FfClient victim = fx.client();
        int pd = victim.allocPd();
        Cq cq = victim.createCq(16);
        attacker = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), TenantProcess.class.getName(), "truncate",
                fx.server.socket().toString(), fx.shm.toString()).redirectErrorStream(true).start();
        String line = new BufferedReader(new InputStreamReader(attacker.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
        assertThat(line).isEqualTo("truncated");

        await().atMost(Duration.ofSeconds(10)).until(() -> fx.router.stats().shmFaults() >= 1
                && fx.router.stats().tenantsReclaimed() == 1);
        assertThat(fx.router.poller().alive()).as("the mailbox poller").isTrue();
        for (int i = 0; i < 1000; i++) {
            assertThat(victim.pollCq(cq, 4)).isEmpty();
        }
        assertThat(fx.router.poller().sinceLastBeatNanos()).isLessThan(TimeUnit.SECONDS.toNanos(1));
        assertThat(victim.createCq(16)).as("the other tenant goes on making objects").isNotNull();
        assertThat(victim.ret(FfClient.DEALLOC_PD, pd)).isZero();
        assertThat(fx.router.tenants()).as("only the victim is left").hasSize(1);
        assertThat(fx.router.stats().tenantsReclaimed()).isEqualTo(1);
        assertThat(List.of(fx.router.poller().mailboxes())).containsExactly(2);
    }
}
