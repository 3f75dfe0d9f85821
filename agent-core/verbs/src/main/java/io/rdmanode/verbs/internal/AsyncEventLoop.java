// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs.internal;

import io.rdmanode.verbs.AsyncEvent;
import io.rdmanode.verbs.AsyncEventListener;
import io.rdmanode.verbs.AsyncEventType;
import io.rdmanode.posix.Errno;
import io.rdmanode.posix.Pipe;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import io.rdmanode.verbs.VerbsException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the async events of every device on one platform thread, {@code rdma-agent-verbs-events}: one context
 * per device, its {@code async_fd} made non-blocking and {@code poll(2)}ed together with a wake-up pipe, then
 * {@code ibv_get_async_event} until {@code EAGAIN}, each event acknowledged before it is delivered. The thread
 * owns its contexts (no other thread touches them), so closing is a wake-up and a join, never a race with a
 * call in progress. A {@code DEVICE_FATAL} closes that device's context at once: a device being removed waits
 * for its users' contexts to close ({@code ib_uverbs_remove_one}). Devices are listed again on start, on
 * {@link #refresh()}, after a {@code DEVICE_FATAL}, and every {@link #RELIST_MS} as a safety net.
 */
final class AsyncEventLoop implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AsyncEventLoop.class);
    static final int RELIST_MS = 10_000;

    private final LibIbverbs lib;
    private final Posix libc = Posix.libc();
    private final DeviceQueries queries;
    private final Runtime runtime;
    private final LongAdder received;
    private final List<AsyncEventListener> listeners = new CopyOnWriteArrayList<>();
    private final Map<String, Pointer> contexts = new LinkedHashMap<>();      // event thread only
    private final Set<String> watched = ConcurrentHashMap.newKeySet();
    private final Pipe wake;
    private final Thread thread;
    private volatile boolean closed;
    private volatile boolean relist = true;
    private volatile String failure;

    AsyncEventLoop(LibIbverbs lib, DeviceQueries queries, LongAdder received) {
        this.lib = lib;
        this.queries = queries;
        this.runtime = Runtime.getRuntime(lib);
        this.received = received;
        try {
            this.wake = libc.pipe2(Posix.O_NONBLOCK | Posix.O_CLOEXEC);
        } catch (PosixException e) {
            throw new VerbsException("pipe2 for the verbs event thread: " + e.reason());
        }
        this.thread = new Thread(this::run, "rdma-agent-verbs-events");
        thread.setDaemon(true);
        thread.start();
    }

    void addListener(AsyncEventListener l) {
        listeners.add(l);
    }

    /** True when none is left. */
    boolean removeListener(AsyncEventListener l) {
        listeners.remove(l);
        return listeners.isEmpty();
    }

    void refresh() {
        relist = true;
        poke();
    }

    Set<String> devices() {
        return Set.copyOf(watched);
    }

    Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    private void run() {
        try {
            while (!closed) {
                if (relist) {
                    relist = false;
                    syncContexts();
                }
                pollOnce();
            }
        } catch (RuntimeException | Error e) {
            failure = e.toString();
            LOG.error("verbs async-event thread stopped: device port events now wait for the periodic rescan", e);
        } finally {
            new ArrayList<>(contexts.keySet()).forEach(this::closeContext);
            libc.close(wake.readFd());
            libc.close(wake.writeFd());
        }
    }

    private void pollOnce() {
        List<String> names = new ArrayList<>(contexts.keySet());
        int[] fds = new int[names.size() + 1];
        fds[0] = wake.readFd();
        for (int i = 0; i < names.size(); i++) {
            fds[i + 1] = asyncFd(contexts.get(names.get(i)));
        }
        short[] revents;
        try {
            revents = libc.poll(fds, Posix.POLLIN, RELIST_MS);
        } catch (PosixException e) {
            if (e.errno() != Errno.EINTR) {
                throw new VerbsException("poll on " + fds.length + " verbs async fds: " + e.reason());
            }
            return;
        }
        boolean any = false;
        for (short r : revents) {
            any |= r != 0;
        }
        if (!any) {
            relist = true;
            return;
        }
        if (revents[0] != 0) {
            drainWakePipe();
        }
        for (int i = 0; i < names.size(); i++) {
            if (revents[i + 1] != 0) {
                readEvents(names.get(i));
            }
        }
    }

    private void readEvents(String device) {
        Pointer ctx = contexts.get(device);
        LibIbverbs.AsyncEventStruct ev = new LibIbverbs.AsyncEventStruct(runtime);
        Pointer mem = Memory.allocateDirect(runtime, DeviceQueries.sizeOf(ev), true);
        ev.useMemory(mem);
        boolean fatal = false;
        while (lib.ibv_get_async_event(ctx, mem) == 0) {
            int code = ev.eventType.get();
            AsyncEventType type = AsyncEventType.of(code);
            OptionalInt port = type.isPortEvent() ? OptionalInt.of(mem.getInt(0)) : OptionalInt.empty();
            lib.ibv_ack_async_event(mem);
            received.increment();
            deliver(new AsyncEvent(device, type, code, port, Instant.now()));
            fatal |= type == AsyncEventType.DEVICE_FATAL;
        }
        int errno = runtime.getLastError();
        if (errno != Errno.EAGAIN && !fatal) {
            LOG.warn("ibv_get_async_event {}: {}; closing its context", device, libc.strerror(errno));
            fatal = true;
        }
        if (fatal) {
            closeContext(device);
            relist = true;
        }
    }

    private void deliver(AsyncEvent event) {
        LOG.debug("verbs async event {}", event);
        for (AsyncEventListener l : listeners) {
            try {
                l.asyncEvent(event);
            } catch (RuntimeException e) {
                LOG.warn("verbs async-event listener failed on {}: {}", event, e.toString());
            }
        }
    }

    /** Opens a context for every listed device that has none, closes those of devices no longer listed. */
    private void syncContexts() {
        Map<String, String> failed = new LinkedHashMap<>();
        Set<String> listed = ConcurrentHashMap.newKeySet();
        try (DeviceQueries.DeviceList list = queries.deviceList()) {
            list.forEach((name, device) -> {
                listed.add(name);
                if (!contexts.containsKey(name)) {
                    try {
                        contexts.put(name, openNonBlocking(name, device));
                        watched.add(name);
                    } catch (VerbsException e) {
                        failed.put(name, e.getMessage());
                    }
                }
            });
        } catch (VerbsException e) {
            LOG.warn("cannot list verbs devices for async events: {}", e.getMessage());
            return;
        }
        new ArrayList<>(contexts.keySet()).stream().filter(n -> !listed.contains(n)).forEach(this::closeContext);
        failed.forEach((name, why) -> LOG.warn("no async events from {}: {}", name, why));
        LOG.debug("verbs async events watched on {}", contexts.keySet());
    }

    private Pointer openNonBlocking(String name, Pointer device) {
        Pointer ctx = lib.ibv_open_device(device);
        if (ctx == null) {
            throw queries.failure("ibv_open_device " + name, runtime.getLastError());
        }
        int fd = asyncFd(ctx);
        try {
            libc.fcntl(fd, Posix.F_SETFL, libc.fcntl(fd, Posix.F_GETFL, 0) | Posix.O_NONBLOCK);
        } catch (PosixException e) {
            lib.ibv_close_device(ctx);
            throw new VerbsException("fcntl O_NONBLOCK on the async fd of " + name + ": " + e.reason());
        }
        return ctx;
    }

    private void closeContext(String name) {
        Pointer ctx = contexts.remove(name);
        watched.remove(name);
        if (ctx != null && lib.ibv_close_device(ctx) != 0) {
            LOG.warn("ibv_close_device {} (async events): {}", name, errno());
        }
    }

    private int asyncFd(Pointer ctx) {
        LibIbverbs.ContextHead head = new LibIbverbs.ContextHead(runtime);
        return ctx.getInt(head.asyncFd.offset());
    }

    private void drainWakePipe() {
        byte[] buf = new byte[64];
        try {
            while (libc.read(wake.readFd(), buf, buf.length) > 0) {
                // nothing: the flags say what to do
            }
        } catch (PosixException e) {
            if (e.errno() != Errno.EAGAIN) {
                throw new VerbsException("reading the verbs event thread's wake-up pipe: " + e.reason());
            }
        }
    }

    private void poke() {
        try {
            libc.write(wake.writeFd(), new byte[] {1}, 1);
        } catch (PosixException e) {
            // EAGAIN: the pipe holds wake-ups already; EBADF: the thread has stopped and closed it
        }
    }

    private String errno() {
        int errno = runtime.getLastError();
        return libc.strerror(errno) + " (errno " + errno + ")";
    }

    /** Wakes the thread and waits (up to 5 s) until it has closed every context. */
    @Override
    public void close() {
        closed = true;
        poke();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("verbs async-event thread did not stop within 5 s");
        }
    }
}
