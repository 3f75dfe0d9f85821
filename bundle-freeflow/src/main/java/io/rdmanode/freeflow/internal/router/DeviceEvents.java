// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.verbs.VerbsDevice;
import io.rdmanode.posix.Errno;
import io.rdmanode.posix.Pipe;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device's events, read on one thread per router (so per device, whatever the number of tenants or CQs):
 * {@code poll(2)} on the context's non-blocking {@code async_fd}, its completion channel's fd and a wake-up pipe.
 *
 * <p>Completion events: {@code ibv_get_cq_event} until EAGAIN, then one {@code ibv_ack_cq_events} per CQ for all
 * its events of the round (the batch), then the router's CQs handed to the transport to drain and signal. Acking
 * before asking for the monitor matters for the same reason as below: {@code ibv_destroy_cq} waits for every event
 * of its CQ to be acknowledged.
 *
 * <p>Async events: {@code ibv_get_async_event} until EAGAIN. Each event's object is looked up ({@code owner}: the transport's table of device pointers, read without
 * the router's monitor) and the event acknowledged before the router's monitor is taken to deliver it: a worker
 * destroying that QP, CQ or SRQ holds the monitor while {@code ibv_destroy_*} waits for the acknowledgement, so asking
 * for the monitor first would deadlock; and looking up after the acknowledgement could find a new object, maybe
 * another tenant's, at the freed pointer.
 */
final class DeviceEvents implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceEvents.class);

    /** Where an event goes once acknowledged: its owner (a router object, or null for a port or unknown one). */
    interface Sink {
        void event(int type, Object owner, int port);

        /** The device signalled {@code cq} (the router's CQ of a device CQ) on the completion channel. */
        default void completion(Object cq) {
        }
    }

    private final VerbsDevice device;
    private final LongFunction<Object> owner;
    private final Sink sink;
    private final Posix libc = Posix.libc();
    private final Pipe wake;
    private final Thread thread;
    private final LongAdder received = new LongAdder();
    private final LongAdder cqEvents = new LongAdder();
    private final LongAdder cqAcks = new LongAdder();
    private volatile boolean closed;

    DeviceEvents(VerbsDevice device, LongFunction<Object> owner, Sink sink) {
        this.device = device;
        this.owner = owner;
        this.sink = sink;
        this.wake = libc.pipe2(Posix.O_NONBLOCK | Posix.O_CLOEXEC);
        this.thread = new Thread(this::run, "rdma-agent-freeflow-events-" + device.name());
        thread.setDaemon(true);
        thread.start();
    }

    long received() {
        return received.sum();
    }

    /** Completion events taken from the channel, and the ibv_ack_cq_events calls that acknowledged them. */
    long cqEvents() {
        return cqEvents.sum();
    }

    long cqAcks() {
        return cqAcks.sum();
    }

    private void run() {
        int[] fds = {device.asyncFd(), device.compFd(), wake.readFd()};
        try {
            while (!closed) {
                short[] revents;
                try {
                    revents = libc.poll(fds, Posix.POLLIN, -1);
                } catch (PosixException e) {
                    if (e.errno() == Errno.EINTR) {
                        continue;
                    }
                    throw e;
                }
                if (revents[1] != 0 && !closed) {
                    completions();
                }
                if (revents[0] != 0 && !closed) {
                    drain();
                }
            }
        } catch (RuntimeException e) {
            LOG.error("freeflow async events of {} stopped: tenants get no more port, QP, CQ or SRQ events",
                    device.name(), e);
        } finally {
            libc.close(wake.readFd());
            libc.close(wake.writeFd());
        }
    }

    private void drain() {
        for (VerbsDevice.AsyncEvent e; (e = device.getAsyncEvent()) != null; ) {
            int type = e.type();
            boolean ofObject = AsyncEvents.element(type) != AsyncEvents.Element.PORT;
            Object o = ofObject ? owner.apply(e.element()) : null;
            int port = ofObject ? 0 : (int) e.element();
            device.ackAsyncEvent(e);
            received.increment();
            LOG.debug("freeflow {} async event {} {}", device.name(), type, ofObject ? o : "port " + port);
            sink.event(type, o, port);
        }
    }

    /** One round of completion events: taken, acknowledged per CQ in one call, then handed on (no lock held). */
    private void completions() {
        java.util.Map<Long, int[]> counts = new java.util.LinkedHashMap<>();
        java.util.Map<Long, Object> owners = new java.util.HashMap<>();
        for (long cq; (cq = device.getCqEvent()) != 0; ) {
            counts.computeIfAbsent(cq, k -> new int[1])[0]++;
            owners.computeIfAbsent(cq, owner::apply);
            cqEvents.increment();
        }
        counts.forEach((cq, n) -> {
            device.ackCqEvents(cq, n[0]);
            cqAcks.increment();
        });
        for (Object o : owners.values()) {
            if (o != null) {
                sink.completion(o);
            }
        }
    }

    /** Wakes the thread and waits (up to 5 s) for it to stop; the device is closed after. */
    @Override
    public void close() {
        closed = true;
        try {
            libc.write(wake.writeFd(), new byte[] {1}, 1);
        } catch (PosixException e) {
            // the thread has stopped already and closed the pipe
        }
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
