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
 * The device's async events, read on one thread per router (so per device, whatever the number of tenants):
 * {@code poll(2)} on the context's non-blocking {@code async_fd} and a wake-up pipe, then {@code ibv_get_async_event}
 * until EAGAIN. Each event's object is looked up ({@code owner}: the transport's table of device pointers, read without
 * the router's monitor) and the event acknowledged before the router's monitor is taken to deliver it: a worker
 * destroying that QP, CQ or SRQ holds the monitor while {@code ibv_destroy_*} waits for the acknowledgement, so asking
 * for the monitor first would deadlock; and looking up after the acknowledgement could find a new object, maybe
 * another tenant's, at the freed pointer.
 */
final class DeviceAsyncEvents implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceAsyncEvents.class);

    /** Where an event goes once acknowledged: its owner (a router object, or null for a port or unknown one). */
    interface Sink {
        void event(int type, Object owner, int port);
    }

    private final VerbsDevice device;
    private final LongFunction<Object> owner;
    private final Sink sink;
    private final Posix libc = Posix.libc();
    private final Pipe wake;
    private final Thread thread;
    private final LongAdder received = new LongAdder();
    private volatile boolean closed;

    DeviceAsyncEvents(VerbsDevice device, LongFunction<Object> owner, Sink sink) {
        this.device = device;
        this.owner = owner;
        this.sink = sink;
        this.wake = libc.pipe2(Posix.O_NONBLOCK | Posix.O_CLOEXEC);
        this.thread = new Thread(this::run, "rdma-agent-freeflow-async-" + device.name());
        thread.setDaemon(true);
        thread.start();
    }

    long received() {
        return received.sum();
    }

    private void run() {
        int[] fds = {device.asyncFd(), wake.readFd()};
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
