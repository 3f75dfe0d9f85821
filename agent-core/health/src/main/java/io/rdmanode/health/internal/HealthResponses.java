// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.StatusSection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The bodies of the built-in paths; no HTTP in here. {@code /healthz} and {@code /readyz} are rendered from the
 * cached result ({@link HealthCache}) and never block; {@code /status} also reads the framework and the status
 * sections, so it runs on a handler thread.
 */
final class HealthResponses {

    static final String TEXT = "text/plain; charset=utf-8";
    static final String JSON = "application/json";

    /**
     * A cached result older than this means the refresher itself is stuck (a refresh normally ends within the
     * check timeout): liveness then fails, rather than answering "ok" from a cache nobody refreshes any more.
     */
    static final Duration STALE_AFTER = Duration.ofSeconds(30);

    record Response(int code, String contentType, String body) {
    }

    private final HealthSources sources;
    private final NamedWhiteboard<StatusSection> sections;
    private final Clock clock;
    private final WarnOnce warnOnce;
    private final StatusDocument statusDocument;
    private final Supplier<Map<String, Object>> server;

    /** @param server the {@code http} member of {@code /status}: the server's own figures */
    HealthResponses(HealthSources sources, NamedWhiteboard<StatusSection> sections, Clock clock, WarnOnce warnOnce,
                    Supplier<Map<String, Object>> server) {
        this.sources = sources;
        this.sections = sections;
        this.clock = clock;
        this.warnOnce = warnOnce;
        this.statusDocument = new StatusDocument(warnOnce);
        this.server = server;
    }

    /** {@code ok} alone when alive, as kube-apiserver answers; the listing when asked or when failing. */
    Response healthz(HealthCache.Snapshot snapshot, boolean verbose) {
        HealthReport report = snapshot.liveness();
        long age = System.nanoTime() - snapshot.nanos();
        if (age > STALE_AFTER.toNanos()) {
            report = report.with(new HealthReport.Line("health-refresh", false,
                    "checks last refreshed " + age / 1_000_000_000L + " s ago: the refresh is stuck"));
        }
        String body = report.ok() && !verbose ? "ok\n" : report.verbose();
        return new Response(report.ok() ? 200 : 503, TEXT, body);
    }

    /** Always the listing: the point of a failing readiness answer is naming the culprit. */
    Response readyz(HealthCache.Snapshot snapshot) {
        HealthReport report = snapshot.readiness();
        return new Response(report.ok() ? 200 : 503, TEXT, report.verbose());
    }

    /**
     * 200 once the agent has started: readiness where a check waiting on a peer outside the agent (kubelet not
     * there yet) passes. What the launcher waits for before its banner and start-up figure; the listing always.
     */
    Response startedz(HealthCache.Snapshot snapshot) {
        HealthReport report = snapshot.readiness().started();
        return new Response(report.ok() ? 200 : 503, TEXT, report.verbose());
    }

    /**
     * {@code ?pid=N} on {@code /startedz}, {@code /readyz} or {@code /status}: during a handover two instances
     * share the port (the successor takes it over), so a launcher asking whether <em>it</em> has started must not
     * take the predecessor's answer for its own. A 409 naming this process when N is another one; empty when N is
     * this process (the usual answer follows).
     */
    static java.util.Optional<Response> otherInstance(String pid) {
        long self = ProcessHandle.current().pid();
        if (pid.equals(Long.toString(self))) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new Response(409, TEXT, "answered by agent process " + self + ", not " + pid
                + " (a handover in progress)\n"));
    }

    /** The checks as last refreshed, with the bundles, components and sections read now. */
    Response status(HealthCache.Snapshot snapshot) {
        List<CheckResult> checks = snapshot.checks();
        List<ComponentInfo> components = sources.components();
        HealthReport readiness = HealthReport.readiness(checks, components);
        Object document = statusDocument.build(sources.agent(), clock.instant(), readiness, checks,
                sources.bundles(), components, server.get(), sections.active());
        return new Response(200, JSON, JsonWriter.write(document));
    }
}
