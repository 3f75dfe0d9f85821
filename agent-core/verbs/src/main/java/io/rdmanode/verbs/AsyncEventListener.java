// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives every device's asynchronous events. Called on the thread {@code rdma-agent-verbs-events}, one
 * event at a time in the order the kernel queued them per device: return quickly (hand work to your own
 * thread). An exception is logged and does not stop delivery to other listeners.
 *
 * @since 1.0
 */
@ConsumerType
@FunctionalInterface
public interface AsyncEventListener {

    void asyncEvent(AsyncEvent event);
}
