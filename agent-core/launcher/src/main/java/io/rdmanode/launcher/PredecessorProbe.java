// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Before the framework starts: is a predecessor running on this state directory, and which doors does it serve?
 * Asked through the JDK (the handover bundle's protocol, its first two requests, which pass no descriptor), so
 * that the HTTP port held by a predecessor is not mistaken for a foreign process's (exit 5 stays for those) and
 * the two instances get framework caches of their own. A stale socket file (a crashed predecessor) refuses the
 * connection: no predecessor.
 */
final class PredecessorProbe {

    static final String SOCKET = "handover.sock";

    /** A running predecessor: its pid and its doors by name, with the address each listens on. */
    record Predecessor(long pid, Map<String, String> doors) {
    }

    private PredecessorProbe() {
    }

    static Optional<Predecessor> find(Path stateDir, Duration timeout) {
        Path socket = stateDir.resolve(SOCKET);
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
             Selector selector = Selector.open()) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ);
            long deadline = System.nanoTime() + timeout.toNanos();
            String[] hello = ask(channel, selector, "HELLO\t1\t" + ProcessHandle.current().pid(), deadline);
            if (hello.length != 3 || !hello[0].equals("HELLO")) {
                return Optional.empty();
            }
            String[] offered = ask(channel, selector, "DOORS", deadline);
            Map<String, String> doors = new LinkedHashMap<>();
            for (int i = 1; i + 1 < offered.length; i += 2) {
                doors.put(offered[i], offered[i + 1]);
            }
            return Optional.of(new Predecessor(Long.parseLong(hello[2]), doors));
        } catch (IOException | RuntimeException none) {
            return Optional.empty(); // no file, nobody listening (stale), or no answer in time
        }
    }

    private static String[] ask(SocketChannel channel, Selector selector, String request, long deadline)
            throws IOException {
        ByteBuffer out = ByteBuffer.wrap((request + "\n").getBytes(StandardCharsets.UTF_8));
        while (out.hasRemaining()) {
            channel.write(out);
        }
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        ByteBuffer one = ByteBuffer.allocate(1);
        for (;;) {
            one.clear();
            int n = channel.read(one);
            if (n < 0) {
                throw new IOException("predecessor closed the connection");
            }
            if (n == 0) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new IOException("predecessor did not answer in time");
                }
                selector.select(left);
                selector.selectedKeys().clear();
                continue;
            }
            if (one.get(0) == '\n') {
                return line.toString(StandardCharsets.UTF_8).split("\t", -1);
            }
            line.write(one.get(0));
        }
    }
}
