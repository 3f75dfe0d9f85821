// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import io.rdmanode.health.HealthStatus;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the bridge did with each revision of the file, for {@code /status -> config}, the {@code config}
 * readiness check and the reload counters. Written by the bridge's one worker thread, read by HTTP threads:
 * every field is an immutable value behind a volatile reference.
 */
final class ConfigHistory {

    record Applied(long revision, String checksum, Instant at, int configurations, List<String> changed,
                   List<String> deleted, List<String> warnings, List<String> unclaimed) {
    }

    record Rejected(long revision, String checksum, Instant at, List<String> problems) {
    }

    private final String file;
    private volatile Applied lastApplied;
    private volatile Rejected lastRejected;
    private volatile boolean currentRejected;
    private volatile boolean runtimeRestartPending;
    private volatile long applied;
    private volatile long rejected;
    private volatile Map<String, Object> bundles = Map.of();
    private volatile ConfigReloader.Held held;

    ConfigHistory(String file) {
        this.file = file;
    }

    void applied(Applied revision, Map<String, Object> bundleStates, boolean restartPending) {
        lastApplied = revision;
        currentRejected = false;
        bundles = Map.copyOf(bundleStates);
        runtimeRestartPending = restartPending;
        applied++;
    }

    void rejected(Rejected revision) {
        lastRejected = revision;
        currentRejected = true;
        rejected++;
    }

    /** A revision waiting before it removes configurations, or null. */
    void held(ConfigReloader.Held revision) {
        held = revision;
    }

    long appliedCount() {
        return applied;
    }

    long rejectedCount() {
        return rejected;
    }

    HealthStatus health() {
        Applied good = lastApplied;
        Rejected bad = lastRejected;
        if (good == null) {
            return HealthStatus.failing("no valid configuration applied from " + file
                    + (bad == null ? " yet" : ": " + String.join("; ", bad.problems())));
        }
        String inForce = "revision " + good.revision() + " (" + good.checksum() + ") of " + file + " in force";
        if (currentRejected) {
            return HealthStatus.ok(inForce + "; revision " + bad.revision() + " rejected: " + bad.problems().get(0)
                    + (bad.problems().size() > 1 ? " (+" + (bad.problems().size() - 1) + " more)" : ""));
        }
        return HealthStatus.ok(inForce);
    }

    Map<String, Object> status() {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("file", file);
        status.put("state", lastApplied == null ? "none" : currentRejected ? "rejected" : "applied");
        Applied good = lastApplied;
        Rejected bad = lastRejected;
        // The revision in force: the number of distinct contents the file has had since the agent started.
        status.put("revision", good == null ? 0 : good.revision());
        if (good != null) {
            Map<String, Object> member = new LinkedHashMap<>();
            member.put("revision", good.revision());
            member.put("checksum", good.checksum());
            member.put("at", good.at().toString());
            member.put("configurations", good.configurations());
            member.put("changed", good.changed());
            member.put("deleted", good.deleted());
            member.put("warnings", good.warnings());
            member.put("unclaimed", good.unclaimed());
            status.put("lastApplied", member);
        } else {
            status.put("lastApplied", null);
        }
        if (bad != null) {
            Map<String, Object> member = new LinkedHashMap<>();
            member.put("revision", bad.revision());
            member.put("checksum", bad.checksum());
            member.put("at", bad.at().toString());
            member.put("problems", bad.problems());
            status.put("lastRejected", member);
        } else {
            status.put("lastRejected", null);
        }
        ConfigReloader.Held waiting = held;
        if (waiting != null) {
            Map<String, Object> member = new LinkedHashMap<>();
            member.put("checksum", waiting.checksum());
            member.put("since", waiting.since().toString());
            member.put("removes", waiting.removals());
            member.put("appliesAfterMs", ConfigReloader.HOLD_REMOVALS_MS);
            status.put("held", member);
        } else {
            status.put("held", null);
        }
        status.put("reloads", Map.of("applied", applied, "rejected", rejected));
        status.put("runtimeRestartPending", runtimeRestartPending);
        status.put("bundles", bundles);
        return status;
    }
}
