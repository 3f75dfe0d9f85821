// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.posix.UnixConnection;
import io.rdmanode.freeflow.internal.posix.UnixServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Unix socket {@code <dir>/<routerName>} the Freeflow client connects to (a new connection per verb, a
 * persistent one per completion channel). One acceptor thread; connections are served by a bounded pool of
 * workers (GET_CQ_EVENT blocks a worker, as in the original). Closing stops accepting, wakes every worker and
 * removes the socket file.
 */
public final class ControlServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);
    private final UnixServer server;
    private final Router router;
    private final Dispatcher dispatcher;
    private final ThreadPoolExecutor workers;
    private final Set<UnixConnection> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private final java.util.concurrent.ScheduledExecutorService reaper;
    private java.util.concurrent.ScheduledFuture<?> reaping;
    private long reapIntervalMillis;

    public ControlServer(Path socket, Router router, int threads, long reapIntervalMillis) throws IOException {
        Files.createDirectories(socket.getParent());
        this.server = UnixServer.listen(socket, "rw-rw-rw-");
        this.router = router;
        this.dispatcher = new Dispatcher(router);
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, "freeflow-control-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        this.workers = pool;
        this.acceptor = new Thread(this::acceptLoop, "freeflow-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        this.reaper = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "freeflow-reaper");
            t.setDaemon(true);
            return t;
        });
        reapInterval(reapIntervalMillis);
        LOG.info("freeflow router listening on {}", socket);
    }

    /**
     * Resizes the worker pool in place: connections being served keep their worker (a smaller pool shrinks as
     * workers go idle), the socket stays open.
     */
    public synchronized void threads(int threads) {
        if (threads > workers.getMaximumPoolSize()) {
            workers.setMaximumPoolSize(threads);
            workers.setCorePoolSize(threads);
        } else {
            workers.setCorePoolSize(threads);
            workers.setMaximumPoolSize(threads);
        }
    }

    public int threads() {
        return workers.getMaximumPoolSize();
    }

    /** Checks for exited clients every millis from now on. */
    public synchronized void reapInterval(long millis) {
        if (reaping != null) {
            if (millis == reapIntervalMillis) {
                return;
            }
            reaping.cancel(false);
        }
        reapIntervalMillis = millis;
        reaping = reaper.scheduleWithFixedDelay(this::reap, millis, millis, TimeUnit.MILLISECONDS);
    }

    public synchronized long reapInterval() {
        return reapIntervalMillis;
    }

    public Path socket() {
        return server.path();
    }

    public int openConnections() {
        return open.size();
    }

    private void reap() {
        try {
            router.reap();
        } catch (RuntimeException e) {
            LOG.error("freeflow reaper failed", e);
        }
    }

    private void acceptLoop() {
        for (;;) {
            UnixConnection c;
            try {
                c = server.accept();
            } catch (IOException e) {
                return;
            }
            router.stats().connections.increment();
            open.add(c);
            try {
                workers.execute(() -> {
                    try {
                        dispatcher.serve(c);
                    } finally {
                        open.remove(c);
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                open.remove(c);
                c.close();
                return;
            }
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", server.path(), e.toString());
        }
        reaper.shutdownNow();
        for (UnixConnection c : open) {
            c.shutdown();
        }
        workers.shutdownNow();
        try {
            if (!workers.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("freeflow control workers still busy after 5 s");
            }
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("freeflow router stopped listening on {}", server.path());
    }
}
