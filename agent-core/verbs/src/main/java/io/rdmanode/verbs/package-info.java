// SPDX-License-Identifier: Apache-2.0
/**
 * libibverbs ({@code infiniband/verbs.h}, rdma-core) as plain Java values, with no jnr type in any signature:
 * the devices libibverbs lists ({@link io.rdmanode.verbs.RdmaVerbs#deviceNames()}), their device and port
 * attributes and GID tables ({@link io.rdmanode.verbs.IbvDevice}, {@link io.rdmanode.verbs.IbvPort},
 * {@link io.rdmanode.verbs.IbvGid}), and their asynchronous events ({@code ibv_get_async_event} /
 * {@code ibv_ack_async_event} on one context per device, delivered to
 * {@link io.rdmanode.verbs.AsyncEventListener}s on the thread {@code rdma-agent-verbs-events}).
 *
 * <p>The verbs bundle registers one {@link io.rdmanode.verbs.RdmaVerbs} service; outside OSGi (tests, tools on a
 * plain class path) the bundle's {@code internal.LibibverbsRdmaVerbs.load} gives an instance of one's own
 * ({@link io.rdmanode.verbs.RdmaVerbs.Owned}); the API names no internal class. Without {@code libibverbs.so.1}
 * the service is still there and says why it cannot answer ({@link io.rdmanode.verbs.RdmaVerbs#unavailableReason()}).
 *
 * <p><b>How this API grows</b> (the Freeflow router needs protection domains, memory regions, completion
 * queues and queue pairs): {@code RdmaVerbs} is a {@code @ProviderType}, so new methods on it are a minor
 * version step for its consumers. The resource calls arrive as one new method,
 * {@code DeviceContext RdmaVerbs.open(String device)}, and new handle types beside it ({@code DeviceContext},
 * {@code ProtectionDomain}, {@code MemoryRegion}, {@code CompletionQueue}, {@code QueuePair}), each
 * {@code AutoCloseable} and owning its native object, with the C signatures staying in the bundle's internal
 * {@code LibIbverbs}. Existing records are not given new components (that would change their canonical
 * constructors); new facts come as new records or methods. Events about those objects ({@code CQ_ERR},
 * {@code QP_FATAL}, ...) are already named in {@link io.rdmanode.verbs.AsyncEventType}; today no caller owns
 * such an object, so they never occur.
 *
 * <p>2.0: {@code RdmaVerbs.load} removed (the API reached into the bundle's internal package; issue 19).
 *
 * @since 1.0
 */
@Export
@Version("2.0.0")
package io.rdmanode.verbs;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
