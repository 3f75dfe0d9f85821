// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.freeflow.testclient.FfClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The poller thread's own settings and its behaviour across idle periods. */
class MailboxPollerTest {

    @Test
    void the_poller_thread_runs_with_a_1_us_timer_slack_so_short_parks_stay_short() throws Exception {
        try (RouterFixture fx = new RouterFixture()) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fx.router.poller().timerSlackNanos() == MailboxPoller.TIMER_SLACK_NANOS);
        }
    }

    @Test
    void a_request_after_the_poller_parked_is_still_answered() throws Exception {
        try (RouterFixture fx = new RouterFixture()) {
            FfClient c = fx.client();
            int pd = c.allocPd();
            FfClient.Cq cq = c.createCq(16);
            assertThat(c.pollCq(cq, 4)).isEmpty();
            long parks = fx.router.poller().parks();
            await().atMost(Duration.ofSeconds(10)).until(() -> fx.router.poller().parks() > parks + 100);
            assertThat(c.pollCq(cq, 4)).isEmpty();
            assertThat(c.postRecv(c.createQp(pd, cq, cq, 4, 1), 1)).containsExactly(22, 1);
        }
    }

    @Test
    void new_back_off_settings_reach_the_running_thread_without_a_restart() throws Exception {
        PollerSettings spinForever = new PollerSettings(Integer.MAX_VALUE, 0, 0, 100_000);
        try (RouterFixture fx = new RouterFixture(Limits.defaults(), spinForever)) {
            MailboxPoller p = fx.router.poller();
            FfClient c = fx.client();
            FfClient.Cq cq = c.createCq(16);
            long scans = p.scans();
            await().atMost(Duration.ofSeconds(10)).until(() -> p.scans() > scans + 10_000);
            assertThat(p.parks()).isZero();

            p.settings(new PollerSettings(0, 0, 0, 50_000));

            await().atMost(Duration.ofSeconds(10)).until(() -> p.parks() > 10);
            assertThat(p.alive()).isTrue();
            assertThat(c.pollCq(cq, 4)).isEmpty();
        }
    }
}
