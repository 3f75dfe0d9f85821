// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Unix socket the rdma executable talks to (mode 0600, in a 0700 directory). Wire format, see
 * src/main/c/rdma-cni.c: "RDMACNI1\n", NUL-terminated CNI_* variables, an empty one, stdin to EOF; the answer is
 * "exit code\n" and stdout. A handler that dies without answering closes the connection, which the client
 * reports as CNI error 11.
 */
final class CniServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CniServer.class);
    static final String MAGIC = "RDMACNI1\n";
    private static final int MAX_REQUEST = 1 << 20;
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Path path;
    private final ServerSocketChannel server;
    private final ExecutorService workers;
    private final Thread acceptor;
    private final BiFunction<Map<String, String>, byte[], CniHandler.Response> handler;

    CniServer(Path path, BiFunction<Map<String, String>, byte[], CniHandler.Response> handler) throws IOException {
        this.path = path;
        this.handler = handler;
        Files.createDirectories(path.getParent());
        Files.deleteIfExists(path);
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path));
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
        workers = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "rdma-agent-cni-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        acceptor = new Thread(this::accept, "rdma-agent-cni-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    Path path() {
        return path;
    }

    boolean isOpen() {
        return server.isOpen();
    }

    private void accept() {
        while (server.isOpen()) {
            try {
                SocketChannel c = server.accept();
                workers.execute(() -> serve(c));
            } catch (IOException e) {
                if (server.isOpen()) {
                    LOG.warn("CNI socket {}: accept failed: {}", path, e.toString());
                }
            }
        }
    }

    private void serve(SocketChannel c) {
        try (c) {
            byte[] req = readAll(Channels.newInputStream(c));
            Map<String, String> env = new HashMap<>();
            byte[] stdin = decode(req, env);
            CniHandler.Response r;
            if (stdin == null) {
                r = new CniHandler.Response(1, CniHandler.error("1.0.0", new CniError(CniError.DECODE,
                        "malformed request from the rdma executable (client and agent versions differ?)")));
            } else {
                r = handler.apply(env, stdin);
            }
            c.write(ByteBuffer.wrap((r.exitCode() + "\n" + r.stdout()).getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            LOG.warn("CNI socket {}: {}", path, e.toString());
        } catch (RuntimeException e) {
            LOG.error("CNI request failed unexpectedly; the client reports the agent as down", e);
        }
    }

    /** Fills env from the request and returns stdin; null when the request is malformed. */
    static byte[] decode(byte[] req, Map<String, String> env) {
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
            String kv = new String(req, i, end - i, StandardCharsets.UTF_8);
            int eq = kv.indexOf('=');
            if (eq > 0) {
                env.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
            i = end + 1;
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) > 0) {
            out.write(buf, 0, n);
            if (out.size() > MAX_REQUEST) {
                throw new IOException("CNI request larger than " + MAX_REQUEST + " bytes");
            }
        }
        return out.toByteArray();
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
            workers.awaitTermination(5, TimeUnit.SECONDS);
            acceptor.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // a stale socket is replaced at the next start
        }
    }
}
