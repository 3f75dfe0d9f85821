// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

/**
 * Names the launcher and the bundles agree on: framework properties (read with
 * {@code BundleContext.getProperty}), the agent's manifest header and service properties.
 */
public final class AgentProperties {

    /** Framework property: absolute path of the HOCON configuration file. */
    public static final String CONFIG = "rdma.agent.config";
    /** Framework property: the state directory (framework cache, sockets, {@code http.url}). */
    public static final String STATE_DIR = "rdma.agent.stateDir";
    /** Framework property: the agent's version. */
    public static final String VERSION = "rdma.agent.version";
    /** Framework property: when the launcher started the framework, ISO-8601 instant. */
    public static final String STARTED_AT = "rdma.agent.startedAt";
    /**
     * Manifest header naming one of the agent's own bundles ({@code health}, {@code discovery}, ...): the name
     * of {@code agent.bundles.<name>.enabled} and of {@code /status}. Bundles without it are third-party.
     */
    public static final String AGENT_BUNDLE_HEADER = "Agent-Bundle";

    private AgentProperties() {
    }
}
