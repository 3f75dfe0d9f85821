// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.StatusSection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The bodies of the built-in paths, computed from the sources on each request; no HTTP in here. The health
 * checks run on {@link CheckRunner}'s threads, so a hung one delays an answer by the check timeout at most.
 */
final class HealthResponses {

    static final String TEXT = "text/plain; charset=utf-8";
    static final String JSON = "application/json";

    record Response(int code, String contentType, String body) {
    }

    private final HealthSources sources;
    private final NamedWhiteboard<StatusSection> sections;
    private final Clock clock;
    private final WarnOnce warnOnce = new WarnOnce();
    private final StatusDocument statusDocument = new StatusDocument(warnOnce);
    private final CheckRunner checks;

    /** @param checkTimeout how long a request waits for the checks (they run on their own threads) */
    HealthResponses(HealthSources sources, NamedWhiteboard<StatusSection> sections, Clock clock,
                    Duration checkTimeout) {
        this.sources = sources;
        this.sections = sections;
        this.clock = clock;
        this.checks = new CheckRunner(checkTimeout, warnOnce);
    }

    /** Stops the check threads (a hung check's included). */
    void close() {
        checks.close();
    }

    /** {@code ok} alone when alive, as kube-apiserver answers; the listing when asked or when failing. */
    Response healthz(boolean verbose) {
        HealthReport report = HealthReport.liveness(runChecks());
        String body = report.ok() && !verbose ? "ok\n" : report.verbose();
        return new Response(report.ok() ? 200 : 503, TEXT, body);
    }

    /** Always the listing: the point of a failing readiness answer is naming the culprit. */
    Response readyz() {
        HealthReport report = HealthReport.readiness(runChecks(), sources.components());
        return new Response(report.ok() ? 200 : 503, TEXT, report.verbose());
    }

    Response status() {
        List<CheckResult> checks = runChecks();
        List<ComponentInfo> components = sources.components();
        HealthReport readiness = HealthReport.readiness(checks, components);
        Object document = statusDocument.build(sources.agent(), clock.instant(), readiness, checks,
                sources.bundles(), components, sections.active());
        return new Response(200, JSON, JsonWriter.write(document));
    }

    private List<CheckResult> runChecks() {
        return checks.run(sources.checks());
    }
}
