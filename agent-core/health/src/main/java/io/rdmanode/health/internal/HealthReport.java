// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.HealthCheck;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The verdict of {@code /healthz} or {@code /readyz} with one line per contributor, rendered like
 * kube-apiserver's verbose health output ({@code [+]name ok: message}, then {@code readyz check passed}).
 * Liveness is every ALIVE check; readiness is every READY check plus every counted component of the agent's
 * bundles being ACTIVE or SATISFIED; "started" is readiness with the checks that only wait on a peer outside the
 * agent (kubelet) passing ({@link #started}).
 */
final class HealthReport {

    /** @param waiting failing only on a peer outside the agent (see {@link io.rdmanode.health.HealthStatus#waiting}) */
    record Line(String name, boolean ok, String message, boolean waiting) {
        Line(String name, boolean ok, String message) {
            this(name, ok, message, false);
        }
    }

    private final String endpoint;
    private final List<Line> lines;

    private HealthReport(String endpoint, List<Line> lines) {
        this.endpoint = endpoint;
        this.lines = List.copyOf(lines);
    }

    static HealthReport of(String endpoint, List<Line> lines) {
        return new HealthReport(endpoint, lines);
    }

    /** This report with one more line (for example the refresher's own staleness). */
    HealthReport with(Line line) {
        List<Line> more = new ArrayList<>(lines);
        more.add(line);
        return new HealthReport(endpoint, more);
    }

    static HealthReport liveness(List<CheckResult> checks) {
        return new HealthReport("healthz", checkLines(checks, HealthCheck.Kind.ALIVE));
    }

    static HealthReport readiness(List<CheckResult> checks, List<ComponentInfo> components) {
        List<Line> lines = checkLines(checks, HealthCheck.Kind.READY);
        for (ComponentInfo component : components) {
            if (component.counted()) {
                lines.add(new Line("component:" + component.name(), !component.failing(),
                        component.detail() + " (bundle " + component.bundle() + ")"));
            }
        }
        return new HealthReport("readyz", lines);
    }

    private static List<Line> checkLines(List<CheckResult> checks, HealthCheck.Kind kind) {
        List<Line> lines = new ArrayList<>();
        checks.stream()
                .filter(c -> c.kind() == kind)
                .sorted(Comparator.comparing(CheckResult::name))
                .forEach(c -> lines.add(new Line(c.name(), c.ok(), c.message(), c.waiting())));
        return lines;
    }

    /**
     * The readiness report read as "has the agent started": a line waiting on a peer outside the agent passes,
     * its message kept; the verdict reads {@code startedz check passed}.
     */
    HealthReport started() {
        return new HealthReport("startedz", lines.stream()
                .map(l -> l.waiting() ? new Line(l.name(), true, l.message()) : l).toList());
    }

    boolean ok() {
        return lines.stream().allMatch(Line::ok);
    }

    List<Line> lines() {
        return lines;
    }

    /** Every line, then the verdict; each message is flattened to one line so the format stays parseable. */
    String verbose() {
        StringBuilder text = new StringBuilder();
        for (Line line : lines) {
            text.append(line.ok() ? "[+]" : "[-]").append(line.name()).append(line.ok() ? " ok" : " failed");
            String message = oneLine(line.message());
            if (!message.isEmpty()) {
                text.append(": ").append(message);
            }
            text.append('\n');
        }
        return text.append(endpoint).append(ok() ? " check passed\n" : " check failed\n").toString();
    }

    private static String oneLine(String message) {
        return message == null ? "" : message.strip().replaceAll("\\s*[\\r\\n]+\\s*", " | ");
    }
}
