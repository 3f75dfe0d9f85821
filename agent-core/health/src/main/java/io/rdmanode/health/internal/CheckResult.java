// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outcome of one {@link HealthCheck} call. A check that throws or returns null counts as failing; one
 * without a kind counts as READY, the side that holds traffic back rather than restarting the agent.
 */
record CheckResult(String name, HealthCheck.Kind kind, boolean ok, String message, boolean waiting) {

    private static final Logger LOG = LoggerFactory.getLogger(CheckResult.class);

    CheckResult(String name, HealthCheck.Kind kind, boolean ok, String message) {
        this(name, kind, ok, message, false);
    }

    static CheckResult run(HealthCheck check, WarnOnce warnOnce) {
        String name = check.getClass().getName();
        HealthCheck.Kind kind = HealthCheck.Kind.READY;
        HealthStatus status;
        try {
            name = check.name();
            kind = check.kind() == null ? HealthCheck.Kind.READY : check.kind();
            status = check.check();
        } catch (RuntimeException e) {
            if (warnOnce.firstFailure("check:" + name)) {
                LOG.warn("health check threw, reporting it as failing check={} kind={}", name, kind, e);
            }
            return new CheckResult(name, kind, false, "check threw " + e);
        }
        warnOnce.recovered("check:" + name);
        if (status == null) {
            return new CheckResult(name, kind, false, "check returned no status");
        }
        return new CheckResult(name, kind, status.ok(), status.message(), status.waiting());
    }
}
