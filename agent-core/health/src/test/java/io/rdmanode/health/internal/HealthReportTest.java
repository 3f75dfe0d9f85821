// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.health.HealthCheck.Kind;
import io.rdmanode.health.HealthStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class HealthReportTest {

    private final WarnOnce warnOnce = new WarnOnce();

    @Test
    void livenessListsOnlyAliveChecksSortedByName() {
        List<CheckResult> checks = List.of(
                new CheckResult("watchdog", Kind.ALIVE, true, "loops checked in"),
                new CheckResult("discovery", Kind.READY, false, "no devices yet"),
                new CheckResult("config", Kind.ALIVE, true, "revision 3"));

        HealthReport report = HealthReport.liveness(checks);

        assertThat(report.ok()).isTrue();
        assertThat(report.verbose()).isEqualTo("""
                [+]config ok: revision 3
                [+]watchdog ok: loops checked in
                healthz check passed
                """);
    }

    @Test
    void readinessFailsOnAFailingReadyCheckAndKeepsEachMessageOnOneLine() {
        List<CheckResult> checks = List.of(new CheckResult("discovery", Kind.READY, false,
                "sysfs backend unavailable:\n/sys/class/infiniband missing\n"));

        HealthReport report = HealthReport.readiness(checks, List.of());

        assertThat(report.ok()).isFalse();
        assertThat(report.verbose()).isEqualTo("""
                [-]discovery failed: sysfs backend unavailable: | /sys/class/infiniband missing
                readyz check failed
                """);
    }

    @Test
    void aCheckWaitingOnKubeletHoldsReadinessButNotTheStart() {
        CheckResult kubelet = CheckResult.run(new FakeCheck("kubelet", Kind.READY,
                () -> HealthStatus.waiting("waiting for kubelet: /dp/kubelet.sock absent")), warnOnce);
        List<CheckResult> checks = List.of(kubelet, new CheckResult("config", Kind.READY, true, "revision 1"));

        HealthReport readiness = HealthReport.readiness(checks, List.of());

        assertThat(readiness.ok()).isFalse();
        assertThat(readiness.verbose()).isEqualTo("""
                [+]config ok: revision 1
                [-]kubelet failed: waiting for kubelet: /dp/kubelet.sock absent
                readyz check failed
                """);
        assertThat(readiness.started().ok()).isTrue();
        assertThat(readiness.started().verbose()).isEqualTo("""
                [+]config ok: revision 1
                [+]kubelet ok: waiting for kubelet: /dp/kubelet.sock absent
                startedz check passed
                """);
    }

    @Test
    void aFailingCheckHoldsTheStartToo() {
        List<CheckResult> checks = List.of(new CheckResult("kubelet", Kind.READY, false,
                "not registered with kubelet: rdma/hca_a: refused"));

        assertThat(HealthReport.readiness(checks, List.of()).started().ok()).isFalse();
    }

    @Test
    void aCheckThatThrowsOrAnswersNothingFails() {
        CheckResult thrown = CheckResult.run(new FakeCheck("verbs", Kind.READY, () -> {
            throw new IllegalStateException("libibverbs.so.1 not loaded");
        }), warnOnce);
        CheckResult empty = CheckResult.run(new FakeCheck("cni", Kind.ALIVE, () -> null), warnOnce);

        assertThat(thrown).isEqualTo(new CheckResult("verbs", Kind.READY, false,
                "check threw java.lang.IllegalStateException: libibverbs.so.1 not loaded"));
        assertThat(empty).isEqualTo(new CheckResult("cni", Kind.ALIVE, false, "check returned no status"));
    }

    @Test
    void anEmptyMessageLeavesJustTheVerdict() {
        CheckResult ok = CheckResult.run(new FakeCheck("config", Kind.ALIVE, () -> HealthStatus.ok("")), warnOnce);

        assertThat(HealthReport.liveness(List.of(ok)).verbose()).isEqualTo("[+]config ok\nhealthz check passed\n");
    }
}
