// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.StatusSection;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the {@code /status} tree: the agent's own members first, then one member per status section. */
final class StatusDocument {

    /** Members a {@link StatusSection} may not take. */
    static final Set<String> MEMBERS = Set.of("agent", "ready", "started", "health", "bundles", "components", "http");

    private static final Logger LOG = LoggerFactory.getLogger(StatusDocument.class);

    private final WarnOnce warnOnce;

    StatusDocument(WarnOnce warnOnce) {
        this.warnOnce = warnOnce;
    }

    Map<String, Object> build(AgentInfo agent, Instant now, HealthReport readiness, List<CheckResult> checks,
                              List<BundleInfo> bundles, List<ComponentInfo> components, Map<String, Object> http,
                              List<NamedWhiteboard.Entry<StatusSection>> sections) {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("agent", agent(agent, now));
        document.put("ready", readiness.ok());
        document.put("started", readiness.started().ok());
        document.put("health", checks.stream().map(StatusDocument::check).toList());
        document.put("bundles", bundles.stream().map(StatusDocument::bundle).toList());
        document.put("components", components.stream().map(StatusDocument::component).toList());
        document.put("http", http);
        for (NamedWhiteboard.Entry<StatusSection> section : sections) {
            document.put(section.name(), section(section));
        }
        return document;
    }

    private static Map<String, Object> agent(AgentInfo agent, Instant now) {
        Map<String, Object> member = new LinkedHashMap<>();
        member.put("version", agent.version());
        member.put("startedAt", agent.startedAt().toString());
        member.put("uptimeSeconds", Math.max(0, Duration.between(agent.startedAt(), now).toSeconds()));
        member.put("java", agent.java());
        member.put("pid", agent.pid());
        if (agent.cds() != null) {
            member.put("cds", agent.cds());
        }
        return member;
    }

    private static Map<String, Object> check(CheckResult check) {
        Map<String, Object> member = new LinkedHashMap<>();
        member.put("name", check.name());
        member.put("kind", check.kind());
        member.put("ok", check.ok());
        member.put("message", check.message());
        if (check.waiting()) {
            member.put("waiting", true);
        }
        return member;
    }

    private static Map<String, Object> bundle(BundleInfo bundle) {
        Map<String, Object> member = new LinkedHashMap<>();
        member.put("id", bundle.id());
        member.put("symbolicName", bundle.symbolicName());
        member.put("agentBundle", bundle.agentBundle());
        member.put("version", bundle.version());
        member.put("state", bundle.state());
        return member;
    }

    private static Map<String, Object> component(ComponentInfo component) {
        Map<String, Object> member = new LinkedHashMap<>();
        member.put("name", component.name());
        member.put("bundle", component.bundle());
        member.put("state", component.state());
        member.put("detail", component.detail());
        return member;
    }

    /**
     * A section that throws shows as {@code {"error": ...}}; it must not take the page down. Its tree is also
     * serialised here, so an unserialisable value is caught before the document is written.
     */
    private Object section(NamedWhiteboard.Entry<StatusSection> section) {
        String key = "section:" + section.name();
        try {
            Object status = section.service().status();
            JsonWriter.write(status);
            warnOnce.recovered(key);
            return status;
        } catch (RuntimeException e) {
            if (warnOnce.firstFailure(key)) {
                LOG.warn("status section failed, showing its error instead section={} owner={}", section.name(),
                        section.owner(), e);
            }
            return Map.of("error", String.valueOf(e.getMessage() == null ? e.toString() : e.getMessage()));
        }
    }
}
