// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The clients a handover must not disturb, each a loop on a thread of its own counting what worked and what
 * failed: {@code /healthz} every 50 ms (a new connection each time, as kubelet's prober), CNI {@code VERSION}
 * through the shipped {@code rdma} executable, and a Freeflow tenant that keeps one control connection and calls
 * ALLOC_PD/DEALLOC_PD on it until it is told to reconnect.
 */
final class HandoverLoad implements AutoCloseable {

    final AtomicLong healthOk = new AtomicLong();
    final AtomicLong cniOk = new AtomicLong();
    final AtomicLong freeflowOk = new AtomicLong();
    final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final AtomicLong lastHealthNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong maxHealthGapNanos = new AtomicLong();
    /** Gaps over 100 ms between answered polls: when the later answer came (nanoTime) and how long, in ms. */
    final ConcurrentLinkedQueue<long[]> longGaps = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private final int port;
    private final Path rdma;
    private final Path router;
    private volatile boolean reconnect;
    private volatile boolean running = true;

    HandoverLoad(int port, Path rdma, Path router) {
        this.port = port;
        this.rdma = rdma;
        this.router = router;
        start("healthz", this::healthz);
        start("cni", this::cni);
        start("freeflow", this::freeflow);
    }

    private void start(String name, Runnable loop) {
        Thread t = new Thread(loop, "handover-load-" + name);
        t.setDaemon(true);
        t.start();
        threads.add(t);
    }

    /** The longest time between two answered /healthz polls since the last call, in ms (then reset). */
    long takeMaxHealthGapMillis() {
        return TimeUnit.NANOSECONDS.toMillis(maxHealthGapNanos.getAndSet(0));
    }

    /** The Freeflow tenant closes its connection (to the predecessor) and opens a new one (to the successor). */
    void reconnectFreeflow() {
        reconnect = true;
    }

    private void healthz() {
        while (running) {
            long asked = System.nanoTime();
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(5000);
                OutputStream out = s.getOutputStream();
                out.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                if (!answer.startsWith("HTTP/1.1 200")) {
                    failures.add("healthz: " + answer.lines().findFirst().orElse("(nothing)"));
                } else {
                    long now = System.nanoTime();
                    long gap = now - lastHealthNanos.getAndSet(now);
                    maxHealthGapNanos.accumulateAndGet(gap, Math::max);
                    if (gap > TimeUnit.MILLISECONDS.toNanos(100)) {
                        // With how long this answer took (connect to close): the rest of a gap is this poller's
                        // own 50 ms pause and its scheduling on a loaded machine, not the agent's.
                        longGaps.add(new long[] {now, TimeUnit.NANOSECONDS.toMillis(gap),
                                TimeUnit.NANOSECONDS.toMillis(now - asked)});
                    }
                    healthOk.incrementAndGet();
                }
            } catch (IOException e) {
                failures.add("healthz: " + e);
            }
            pause(50);
        }
    }

    private void cni() {
        while (running) {
            try {
                ProcessBuilder b = new ProcessBuilder(rdma.toString()).redirectErrorStream(true);
                b.environment().put("CNI_COMMAND", "VERSION");
                Process p = b.start();
                try (OutputStream in = p.getOutputStream()) {
                    in.write("{\"cniVersion\":\"1.0.0\",\"name\":\"demo\",\"type\":\"rdma\"}".getBytes(StandardCharsets.UTF_8));
                }
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0 || !out.contains("supportedVersions")) {
                    failures.add("cni VERSION: " + out.strip());
                } else {
                    cniOk.incrementAndGet();
                }
            } catch (IOException e) {
                failures.add("cni VERSION: " + e);
            } catch (InterruptedException e) {
                return;
            }
            pause(20);
        }
    }

    private void freeflow() {
        SocketChannel channel = null;
        while (running) {
            try {
                if (channel == null || reconnect) {
                    if (channel != null) {
                        channel.close();
                    }
                    reconnect = false;
                    channel = SocketChannel.open(UnixDomainSocketAddress.of(router));
                }
                int pd = call(channel, 5, -1);
                if (pd == 0 || call(channel, 6, pd) != 0) {
                    failures.add("freeflow: ALLOC_PD/DEALLOC_PD refused (pd " + pd + ")");
                } else {
                    freeflowOk.incrementAndGet();
                }
            } catch (IOException e) {
                failures.add("freeflow: " + e);
                channel = null;
            }
            pause(20);
        }
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException ignored) {
            // done
        }
    }

    /** One Freeflow call: header (client id 7, function, body size), a handle as body when one is given. */
    private static int call(SocketChannel channel, int func, int handle) throws IOException {
        ByteBuffer request = ByteBuffer.allocate(handle < 0 ? 12 : 16).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(7).putInt(func).putInt(handle < 0 ? 0 : 4);
        if (handle >= 0) {
            request.putInt(handle);
        }
        request.flip();
        while (request.hasRemaining()) {
            channel.write(request);
        }
        ByteBuffer answer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        while (answer.hasRemaining()) {
            if (channel.read(answer) < 0) {
                throw new IOException("router closed the connection");
            }
        }
        return answer.flip().getInt();
    }

    private void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            running = false;
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            for (Thread t : threads) {
                t.join(10_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
