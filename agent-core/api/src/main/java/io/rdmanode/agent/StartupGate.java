// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Where a component reports a start-up resource it cannot get: a socket it cannot bind, a directory that is a file.
 * Offered as a service by the launcher. While the agent starts (until it is first ready), the launcher stops it with
 * exit status 5 and prints the line: an agent that runs on without one of its doors is worse than one that does not
 * start (kubelet, the runtime or a Freeflow client would find nothing there, and only the log would say why). After
 * that, it returns {@code false}: a live edit that asks for an unusable resource is the component's to report
 * (its health check), and the agent keeps serving. Without a launcher (a test framework) there is no such service.
 *
 * @since 1.3
 */
@ProviderType
public interface StartupGate {

    /**
     * @param line what could not be had, where, why, and which setting changes it, e.g. {@code cannot serve the CNI
     *             socket /run/x/cni.sock: Permission denied; change cni.socket}; the launcher adds the file
     * @return true when the agent stops because of it (the caller still fails its activation as it would)
     */
    boolean unavailable(String line);

    /**
     * The configuration the agent starts with is refused by a check the launcher's own read cannot make (a type, a
     * range, a component's validator): while the agent starts, the launcher stops it with exit status 6, as it does
     * for a syntax error, rather than letting it run on built-in defaults. After that, false: a rejected live edit
     * leaves the revision in force.
     *
     * @param problems the refusal's {@code file:line:column: key: message} lines
     * @return true when the agent stops because of it
     * @since 1.7
     */
    default boolean invalidConfiguration(java.util.List<String> problems) {
        return false;
    }
}
