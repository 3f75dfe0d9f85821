// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects to kubelet once, without a call, while the pools are still being set up, then lets the connection go.
 * A start's first {@code Register} paid the gRPC client's whole cold path (channel, name resolution, load
 * balancer, Netty client pipeline, HTTP/2 handshake: ~125 ms from a pool serving to kubelet seeing its Register on
 * a 2-core node) after the pool's socket was ready; run beside the pools' activation, that path is warm when the
 * Register is sent. Each Register still dials its own connection ({@link DevicePluginServer}): this one only
 * connects and closes, which kubelet's gRPC server takes as a client that went away. Measured with
 * {@code scripts/bench-crash-window 20 -Drdma.agent.kubelet.noWarmup=true} (that property switches it off for the
 * B rounds): exec to every pool registered p50 690 vs 724 ms, p99 761 vs 848 ms.
 */
final class KubeletConnectionWarmup {

    private static final Logger LOG = LoggerFactory.getLogger(KubeletConnectionWarmup.class);
    private static final long BOUND_MILLIS = 1000;

    private KubeletConnectionWarmup() {
    }

    static void connect(UdsTransport transport, Path kubeletSocket) {
        if (!Files.exists(kubeletSocket)) {
            return;                                            // no kubelet yet: the first Register waits anyway
        }
        long started = System.nanoTime();
        ManagedChannel channel = transport.dial(kubeletSocket);
        try {
            ConnectivityState state = channel.getState(true);
            long deadline = started + TimeUnit.MILLISECONDS.toNanos(BOUND_MILLIS);
            while (state != ConnectivityState.READY && state != ConnectivityState.TRANSIENT_FAILURE
                    && state != ConnectivityState.SHUTDOWN && System.nanoTime() < deadline) {
                CountDownLatch changed = new CountDownLatch(1);
                channel.notifyWhenStateChanged(state, changed::countDown);
                changed.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                state = channel.getState(false);
            }
            LOG.debug("kubelet connection warm-up: {} after {} ms", state,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.debug("kubelet connection warm-up failed: {}", e.toString());
        } finally {
            channel.shutdownNow();
        }
    }
}
