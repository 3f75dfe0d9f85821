// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Facts about the running agent for the {@code agent} member of {@code /status}; fixed for one activation.
 *
 * @param cds the class-data-sharing archive in use as the launcher reports it ({@code packaged <path>},
 *            {@code state <path>}, {@code none...}), or null when it does not say (a bare Felix in tests)
 */
record AgentInfo(String version, Instant startedAt, String java, long pid, String cds) {

    /** Framework property the launcher sets. */
    static final String CDS_PROPERTY = "rdma.agent.cds";

    AgentInfo(String version, Instant startedAt, String java, long pid) {
        this(version, startedAt, java, pid, null);
    }

    AgentInfo withCds(String archive) {
        return new AgentInfo(version, startedAt, java, pid, archive);
    }

    /**
     * From the launcher's framework properties; either may be absent (a bare Felix in tests). Without a start
     * time, {@code fallbackStart} (when this bundle came up) stands in; an unparsable one is reported as empty.
     */
    static AgentInfo of(String version, String startedAt, Instant fallbackStart) {
        return new AgentInfo(version == null || version.isBlank() ? "unknown" : version,
                parse(startedAt).orElse(fallbackStart), System.getProperty("java.version"),
                ProcessHandle.current().pid());
    }

    static Optional<Instant> parse(String instant) {
        if (instant == null || instant.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(instant.trim()));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
