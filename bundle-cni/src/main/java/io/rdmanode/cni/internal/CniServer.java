// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.rdmanode.agent.Handover;
import io.rdmanode.agent.LogText;
import io.rdmanode.agent.RefusalLog;
import io.rdmanode.posix.Posix;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Unix socket the rdma executable talks to (mode 0600, in a 0700 directory). Wire format, see
 * src/main/c/rdma-cni.c: "RDMACNI1\n", NUL-terminated CNI_* variables, an empty one, stdin to EOF; the answer is
 * "exit code\n" and stdout. A handler that dies without answering closes the connection, which the client
 * reports as CNI error 11.
 *
 * <p>Bounds, so that no client, slow, large or many, takes the socket from the others: one thread reads every
 * connection without blocking (an idle connection holds no thread and no buffer), and hands a request to the
 * workers only once it is complete; a connection that has not sent its whole request within
 * {@link Limits#requestTimeoutMillis} is closed (and one whose answer is not read within it); a request over
 * {@link Limits#maxRequestBytes} is answered with the spec's decode error (6) naming the limit; at
 * {@link Limits#maxConnections} the oldest connection still sending (or not reading its answer) is closed for
 * the new one, so a burst of idle connections cannot lock a runtime out; and the bytes buffered for unfinished
 * requests have a budget ({@link Limits#maxBufferedBytes}) against the agent's small heap.
 */
final class CniServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CniServer.class);
    static final String MAGIC = "RDMACNI1\n";
    /** The plugin-specific code of an answer the agent failed to produce (a bug: the log has the stack trace). */
    static final int INTERNAL = 105;
    private static final int WORKERS = 2;
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwx------");

    /** The socket's bounds; {@link CniComponent.Config} sets them. */
    record Limits(long maxRequestBytes, long requestTimeoutMillis, int maxConnections) {

        static final Limits DEFAULTS = new Limits(1 << 20, 10_000, 256);

        /** Bytes of unfinished and queued requests held at once: room for a few maximal requests, at least 8 MiB. */
        long maxBufferedBytes() {
            return Math.max(8L << 20, 2 * maxRequestBytes);
        }
    }

    /** One connection; every field is the I/O thread's, except {@link #answer} that a worker sets first. */
    private static final class Conn {
        final SocketChannel channel;
        final long acceptedAt;
        SelectionKey key;
        long deadline;
        byte[] data = new byte[0];
        int size;
        volatile ByteBuffer answer;
        boolean handling;
        boolean closed;

        Conn(SocketChannel channel, long now) {
            this.channel = channel;
            this.acceptedAt = now;
        }
    }

    private final Path path;
    private final Limits limits;
    private final CniStats stats;
    private final RefusalLog refusals = new RefusalLog(LOG, Duration.ofSeconds(60));
    /** The I/O thread's; replaced only by it ({@link #takeBack}). */
    private volatile ServerSocketChannel server;
    /** A taken-back listening channel for the I/O thread to accept on. */
    private volatile ServerSocketChannel takenBack;
    private volatile CountDownLatch takenBackApplied = new CountDownLatch(0);
    private final Selector selector;
    private final ExecutorService workers;
    private final Thread io;
    private final BiFunction<Map<String, String>, byte[], CniHandler.Response> handler;
    private final Queue<Conn> answered = new ConcurrentLinkedQueue<>();
    /** Connections reading their request or writing their answer, oldest (earliest deadline) first. */
    private final LinkedHashSet<Conn> waiting = new LinkedHashSet<>();
    private final ByteBuffer readBuffer = ByteBuffer.allocate(64 * 1024);
    private long buffered;
    private volatile boolean running = true;
    private volatile boolean handedOver;
    private volatile CountDownLatch released = new CountDownLatch(1);

    CniServer(Path path, BiFunction<Map<String, String>, byte[], CniHandler.Response> handler) throws IOException {
        this(path, handler, Limits.DEFAULTS, new CniStats());
    }

    CniServer(Path path, BiFunction<Map<String, String>, byte[], CniHandler.Response> handler, Limits limits,
              CniStats stats) throws IOException {
        this(path, OptionalInt.empty(), handler, limits, stats);
    }

    /** @param adopted a predecessor's listening descriptor for {@code path} (handover), else it is bound anew */
    CniServer(Path path, OptionalInt adopted, BiFunction<Map<String, String>, byte[], CniHandler.Response> handler,
              Limits limits, CniStats stats) throws IOException {
        this.path = path;
        this.handler = handler;
        this.limits = limits;
        this.stats = stats;
        if (adopted.isPresent()) {
            server = AdoptedUnixChannel.adopt(Posix.libc(), path, adopted.getAsInt());
        } else {
            privateDirectory(path.getParent(), path.getFileName().toString());
            Files.deleteIfExists(path);
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(path));
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
        }
        server.configureBlocking(false);
        selector = Selector.open();
        server.register(selector, SelectionKey.OP_ACCEPT);
        workers = Executors.newFixedThreadPool(WORKERS, r -> {
            Thread t = new Thread(r, "rdma-agent-cni-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        io = new Thread(this::run, "rdma-agent-cni-io");
        io.setDaemon(true);
        io.start();
    }

    /**
     * The socket's directory, mode 0700: created so when missing. An existing one (systemd's RuntimeDirectory is
     * 0750, a DaemonSet's hostPath DirectoryOrCreate 0755) is narrowed to 0700 when it holds nothing but this
     * socket, i.e. it is the socket's own; a shared directory is left as it is, with a warning (the socket
     * itself is 0600 either way).
     */
    static void privateDirectory(Path dir, String socketName) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
            Files.setPosixFilePermissions(dir, DIRECTORY_MODE); // the umask may have narrowed the mode, never widen
            return;
        }
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(dir);
        if (mode.equals(DIRECTORY_MODE)) {
            return;
        }
        boolean own;
        try (Stream<Path> entries = Files.list(dir)) {
            own = entries.allMatch(p -> p.getFileName().toString().equals(socketName));
        }
        if (own) {
            Files.setPosixFilePermissions(dir, DIRECTORY_MODE);
            LOG.info("CNI socket directory {} was mode {}; now rwx------", dir, PosixFilePermissions.toString(mode));
        } else {
            LOG.warn("CNI socket directory {} is mode {} and holds other files: left as it is (the socket is"
                    + " rw-------); give the socket a directory of its own for rwx------", dir,
                    PosixFilePermissions.toString(mode));
        }
    }

    Path path() {
        return path;
    }

    /**
     * The listening socket as a door a successor can take ({@code Handover.Door}); empty when /proc does not show
     * its descriptor (then this instance is not taken over and the successor binds anew).
     */
    Optional<Handover.Door> door() {
        OptionalInt fd;
        try {
            fd = AdoptedUnixChannel.descriptorBoundTo(path);
        } catch (IOException e) {
            LOG.warn("CNI socket {}: cannot find its descriptor for a handover: {}", path, e.toString());
            return Optional.empty();
        }
        if (fd.isEmpty()) {
            return Optional.empty();
        }
        descriptor = fd.getAsInt();
        return Optional.of(new Handover.Door() {
            @Override
            public int fd() {
                return descriptor;
            }

            @Override
            public void handedOver() {
                stopAccepting();
            }

            @Override
            public boolean takeBack(int fd) {
                return CniServer.this.takeBack(fd);
            }
        });
    }

    private volatile int descriptor = -1;

    /**
     * The successor that took the socket died before it served it: the I/O thread accepts on {@code fd} (the same
     * listening socket; consumed) again. False when it cannot (logged), the descriptor closed.
     */
    private synchronized boolean takeBack(int fd) {
        if (!running || !handedOver) {
            Posix.libc().close(fd);
            return false;
        }
        try {
            AdoptedUnixChannel.Adopted adopted = AdoptedUnixChannel.adoptAt(Posix.libc(), path, fd);
            ServerSocketChannel channel = adopted.channel();
            channel.configureBlocking(false);
            released.await(2, TimeUnit.SECONDS);         // the old channel closed first: one accept key at a time
            descriptor = adopted.fd();
            // The I/O thread swaps the channel, the latch and the flag it reads itself, between two turns: set here,
            // a turn that had read the flag before could close the new channel or count the new latch down.
            CountDownLatch applied = new CountDownLatch(1);
            takenBackApplied = applied;
            takenBack = channel;
            selector.wakeup();
            if (!applied.await(2, TimeUnit.SECONDS)) {
                LOG.warn("CNI socket {}: the I/O thread did not take the socket back within 2 s", path);
            }
            LOG.warn("CNI socket {} accepts here again: the successor it was handed to died", path);
            return true;
        } catch (IOException e) {
            LOG.error("CNI socket {}: cannot accept on the taken-back socket again: {}", path, e.toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** On the I/O thread: a taken-back socket is accepted on from now on. */
    private void acceptTakenBack() {
        ServerSocketChannel channel = takenBack;
        if (channel == null) {
            return;
        }
        takenBack = null;
        try {
            channel.register(selector, SelectionKey.OP_ACCEPT);
            server = channel;
            released = new CountDownLatch(1);
            handedOver = false;
        } catch (IOException e) {
            LOG.error("CNI socket {}: cannot accept on the taken-back socket again: {}", path, e.toString());
        } finally {
            takenBackApplied.countDown();
        }
    }

    /**
     * A successor accepts on the socket now: the I/O thread cancels the accept key and closes this process's
     * channel (the JDK deregisters it from epoll before it closes the descriptor, and never unlinks the path);
     * requests already read are answered as usual. Returns once accepting stopped (or after 2 s).
     */
    private void stopAccepting() {
        handedOver = true;
        selector.wakeup();
        try {
            if (!released.await(2, TimeUnit.SECONDS)) {
                LOG.warn("CNI socket {}: the I/O thread did not stop accepting within 2 s", path);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("CNI socket {} handed to a successor", path);
    }

    private void releaseIfHandedOver() {
        if (handedOver && released.getCount() > 0) {
            SelectionKey key = server.keyFor(selector);
            if (key != null) {
                key.cancel();
            }
            try {
                server.close();
            } catch (IOException ignored) {
                // this process's descriptor only; the successor's is untouched
            }
            released.countDown();
        }
    }

    boolean isOpen() {
        return server.isOpen();
    }

    private void run() {
        try {
            while (running) {
                long timeout = 0;
                if (!waiting.isEmpty()) {
                    long left = waiting.iterator().next().deadline - System.nanoTime();
                    timeout = Math.max(1, TimeUnit.NANOSECONDS.toMillis(left) + 1);
                }
                releaseIfHandedOver();
                acceptTakenBack();
                selector.select(this::ready, timeout);
                for (Conn c; (c = answered.poll()) != null; ) {
                    answer(c);
                }
                expire(System.nanoTime());
            }
        } catch (IOException | ClosedSelectorException e) {
            if (running) {
                LOG.error("CNI socket {}: the I/O loop stopped: {}", path, e.toString());
            }
        } finally {
            for (SelectionKey k : selector.keys()) {
                if (k.attachment() instanceof Conn c) {
                    close(c);
                }
            }
        }
    }

    private void ready(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        if (key.isAcceptable()) {
            acceptAll();
            return;
        }
        Conn c = (Conn) key.attachment();
        if (key.isReadable()) {
            read(c);
        } else if (key.isWritable()) {
            write(c);
        }
    }

    private void acceptAll() {
        while (true) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                if (server.isOpen()) {
                    refusals.warn("cni-accept", "CNI socket {}: accept failed: {}", path, e.toString());
                }
                return;
            }
            if (channel == null) {
                return;
            }
            long now = System.nanoTime();
            Conn c = new Conn(channel, now);
            stats.connectionsOpen.incrementAndGet();
            try {
                channel.configureBlocking(false);
                c.key = channel.register(selector, SelectionKey.OP_READ, c);
            } catch (IOException e) {
                close(c);
                continue;
            }
            if (stats.connectionsOpen.get() > limits.maxConnections()) {
                // The oldest connection still sending (or not reading its answer) goes: a runtime sends its whole
                // request at once, so the oldest is the idlest. With none (all are being answered), the new one.
                Conn oldest = waiting.isEmpty() ? c : waiting.iterator().next();
                refuse(oldest, "connection_limit", "rdma-node-agent closed this CNI connection: "
                        + limits.maxConnections() + " connections were open (cni.maxConnections) and it was the"
                        + " oldest still sending its request; try again later");
            }
            if (!c.closed) {
                c.deadline = now + TimeUnit.MILLISECONDS.toNanos(limits.requestTimeoutMillis());
                waiting.add(c);
            }
        }
    }

    private void read(Conn c) {
        readBuffer.clear();
        int n;
        try {
            n = c.channel.read(readBuffer);
        } catch (IOException e) {
            close(c);
            return;
        }
        if (n < 0) {
            if (c.size == 0) {
                close(c); // connected and left without a word (a probe, a client that gave up): nothing to answer
            } else {
                dispatch(c);
            }
            return;
        }
        if ((long) c.size + n > limits.maxRequestBytes()) {
            stats.requestRefused("size");
            refusals.warn("cni-request-size", "CNI socket {}: refused a request larger than {} bytes"
                    + " (cni.maxRequestBytes); answered with CNI error 6", path, limits.maxRequestBytes());
            drop(c);
            reply(c, errorAnswer(CniError.DECODE, "the CNI request is larger than the agent's limit of "
                    + limits.maxRequestBytes() + " bytes (cni.maxRequestBytes); the network configuration on stdin"
                    + " and the CNI_* environment together must fit"));
            return;
        }
        if (c.size + n > c.data.length) {
            c.data = Arrays.copyOf(c.data, (int) Math.min(limits.maxRequestBytes(),
                    Math.max(c.size + n, Math.max(4096, 2L * c.data.length))));
        }
        readBuffer.flip();
        readBuffer.get(c.data, c.size, n);
        c.size += n;
        buffered += n;
        while (buffered > limits.maxBufferedBytes() && !c.closed) {
            Conn largest = c;
            for (Conn w : waiting) {
                if (w.answer == null && w.size > largest.size) {
                    largest = w;
                }
            }
            refuse(largest, "buffer_limit", "rdma-node-agent closed this CNI connection: unfinished CNI requests"
                    + " held " + buffered + " bytes, over its budget of " + limits.maxBufferedBytes() + " bytes, and"
                    + " this one held the most; try again later");
        }
    }

    /** The whole request is in: a worker decodes and answers it. */
    private void dispatch(Conn c) {
        waiting.remove(c);
        c.handling = true;
        c.key.interestOps(0);
        byte[] request = c.data;
        int size = c.size;
        try {
            workers.execute(() -> {
                c.answer = ByteBuffer.wrap(respond(request, size));
                answered.add(c);
                selector.wakeup();
            });
        } catch (RejectedExecutionException stopping) {
            c.handling = false;
            close(c); // the server is closing: the client reports the agent as stopped (error 11)
        }
    }

    /** Runs on a worker: the answer's bytes, whatever happens. */
    private byte[] respond(byte[] request, int size) {
        try {
            Map<String, String> env = new HashMap<>();
            byte[] stdin = decode(Arrays.copyOf(request, size), env);
            if (stdin == null) {
                stats.requestRefused("malformed");
                refusals.warn("cni-malformed", "CNI socket {}: refused a malformed request ({} bytes, starting"
                        + " '{}')", path, size, LogText.escape(new String(request, 0, Math.min(size, 32),
                        StandardCharsets.ISO_8859_1)));
                return errorAnswer(CniError.DECODE, "malformed request from the rdma executable (client and agent"
                        + " versions differ?)");
            }
            CniHandler.Response r = handler.apply(env, stdin);
            return (r.exitCode() + "\n" + r.stdout()).getBytes(StandardCharsets.UTF_8);
        } catch (CniError e) {
            return errorAnswer(e.code, e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("CNI request failed unexpectedly", e);
            return errorAnswer(INTERNAL, "rdma-node-agent failed to handle the request: " + e
                    + " (an agent bug; its log has the details)");
        }
    }

    private static byte[] errorAnswer(int code, String message) {
        return ("1\n" + CniHandler.error("1.0.0", new CniError(code, message))).getBytes(StandardCharsets.UTF_8);
    }

    /** A worker's answer is ready: write it (I/O thread). */
    private void answer(Conn c) {
        c.handling = false;
        buffered -= c.size;
        c.data = null;
        if (c.closed) {
            return;
        }
        reply(c, null);
    }

    /** Writes {@code answer} (or the one a worker set) and closes; the rest waits for OP_WRITE. */
    private void reply(Conn c, byte[] answer) {
        if (answer != null) {
            c.answer = ByteBuffer.wrap(answer);
        }
        waiting.remove(c);
        c.deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limits.requestTimeoutMillis());
        waiting.add(c);
        write(c);
        if (!c.closed) {
            c.key.interestOps(SelectionKey.OP_WRITE);
        }
    }

    private void write(Conn c) {
        try {
            c.channel.write(c.answer);
            if (!c.answer.hasRemaining()) {
                close(c);
            }
        } catch (IOException e) {
            close(c); // the client went away
        }
    }

    /** Closes connections past their deadline: still sending their request, or not reading their answer. */
    private void expire(long now) {
        for (Iterator<Conn> it = waiting.iterator(); it.hasNext(); ) {
            Conn c = it.next();
            if (c.deadline - now > 0) {
                return;
            }
            it.remove();
            stats.connectionsTimedOut.increment();
            refusals.warn("cni-request-timeout", "CNI socket {}: closed a connection that {} within {} ms"
                    + " (cni.requestTimeout; {} bytes received)", path, c.answer == null ? "had not sent its whole"
                    + " request" : "had not read its answer", limits.requestTimeoutMillis(), c.size);
            close(c);
        }
    }

    /** Answers {@code c} with error 11 (best effort, one non-blocking write) and closes it. */
    private void refuse(Conn c, String reason, String message) {
        stats.connectionRefused(reason);
        refusals.warn("cni-refused-" + reason, "CNI socket {}: closed a connection: {} ({} open, {} bytes"
                + " buffered)", path, reason, stats.connectionsOpen.get(), buffered);
        if (c.answer == null && !c.handling) {
            drop(c);
            try {
                c.channel.write(ByteBuffer.wrap(errorAnswer(CniError.TRY_AGAIN, message)));
            } catch (IOException e) {
                // closing anyway
            }
        }
        close(c);
    }

    /** Forgets what a reading connection buffered. */
    private void drop(Conn c) {
        buffered -= c.size;
        c.size = 0;
        c.data = new byte[0];
    }

    private void close(Conn c) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        waiting.remove(c);
        if (c.answer == null && !c.handling) {
            buffered -= c.size;
        }
        if (c.key != null) {
            c.key.cancel();
        }
        try {
            c.channel.close();
        } catch (IOException e) {
            // closed anyway
        }
        stats.connectionsOpen.decrementAndGet();
    }

    /**
     * Fills env from the request and returns stdin; null when the request is malformed. Every value is UTF-8,
     * whatever the agent's locale; one that is not valid UTF-8 is a decode error naming the variable.
     */
    static byte[] decode(byte[] req, Map<String, String> env) throws CniError {
        byte[] magic = MAGIC.getBytes(StandardCharsets.US_ASCII);
        if (req.length < magic.length || !new String(req, 0, magic.length, StandardCharsets.US_ASCII).equals(MAGIC)) {
            return null;
        }
        int i = magic.length;
        while (true) {
            int end = i;
            while (end < req.length && req[end] != 0) {
                end++;
            }
            if (end >= req.length) {
                return null;
            }
            if (end == i) {
                byte[] stdin = new byte[req.length - end - 1];
                System.arraycopy(req, end + 1, stdin, 0, stdin.length);
                return stdin;
            }
            int eq = i;
            while (eq < end && req[eq] != '=') {
                eq++;
            }
            if (eq > i && eq < end) {
                String key = new String(req, i, eq - i, StandardCharsets.UTF_8);
                try {
                    env.put(key, StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(req, eq + 1, end - eq - 1)).toString());
                } catch (CharacterCodingException e) {
                    throw new CniError(CniError.DECODE, LogText.escape(key, 64) + " is not valid UTF-8");
                }
            }
            i = end + 1;
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        workers.shutdown();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS); // answers in flight are written before the loop stops
            running = false;
            selector.wakeup();
            io.join(2000);
            selector.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            // closing anyway
        }
        if (handedOver) {
            return; // the path is the successor's
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // a stale socket is replaced at the next start
        }
    }
}
