// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import java.time.Duration;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Start-up work that the launcher lets settle before it starts the bundles not needed to serve kubelet (the HTTP
 * endpoint, metrics, CNI, Freeflow, DRA). After a crash nothing hands over, and every pod kubelet admits before
 * the agent's pools are registered again fails (issue 27); on a node's two cores that registration would otherwise
 * share the machine with the rest of the start. Offered as a service by the kubelet bundle; the launcher asks
 * every one once per start, when the bundles that serve kubelet have started, and goes on when each has settled
 * or the launcher's bound has passed (a kubelet that does not answer holds the rest of the start back no longer).
 *
 * @since 1.6
 */
@ConsumerType
public interface StartupBarrier {

    /**
     * Returns once the work begun so far has settled (for the kubelet bundle: every pool served has had its first
     * registration attempt, accepted or not), or when {@code timeout} has passed.
     *
     * @return true when it settled within {@code timeout}
     */
    boolean awaitSettled(Duration timeout) throws InterruptedException;
}
