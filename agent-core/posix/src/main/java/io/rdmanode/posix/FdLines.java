// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.posix;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A line protocol on a connected Unix stream socket that passes descriptors: one UTF-8 line per message, fields
 * apart by a tab; a descriptor travels as {@code SCM_RIGHTS} with the first byte of its line. The handover's
 * protocol (listening sockets to a successor) and the Freeflow router's drain (tenant connections back to the
 * predecessor) both speak it. Lines are read one byte at a time (they are a few dozen bytes, a handful per
 * exchange), so no byte of the next message, and no descriptor, is ever read ahead of its line.
 *
 * @since 1.2
 */
public final class FdLines {

    public static final int MAX_LINE = 4096;

    private final Posix posix;
    private final int fd;

    public FdLines(Posix posix, int fd) {
        this.posix = posix;
        this.fd = fd;
    }

    /** {@code SO_RCVTIMEO}: a peer that stops answering turns into an error instead of a hang. */
    public void receiveTimeout(long millis) {
        ByteBuffer timeval = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
        timeval.putLong(millis / 1000).putLong((millis % 1000) * 1000);
        posix.setsockopt(fd, Posix.SOL_SOCKET, Posix.SO_RCVTIMEO, timeval.array());
    }

    /** A line and the descriptors that came with it (owned by the caller). */
    public record Line(String text, int[] fds) {

        public String[] fields() {
            return text.split("\t", -1);
        }
    }

    public void send(String line) {
        send(line, -1);
    }

    /** Sends {@code line} and a newline, with {@code passFd} as SCM_RIGHTS when it is not negative. */
    public void send(String line, int passFd) {
        ByteBuffer data = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        int pass = passFd;
        while (data.hasRemaining()) {
            posix.sendmsg(fd, data, pass, Posix.MSG_NOSIGNAL);
            pass = -1;
        }
    }

    /** The next line; an {@link EOFException} when the peer closed first. */
    public Line read() throws IOException {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        List<Integer> fds = new ArrayList<>();
        ByteBuffer one = ByteBuffer.allocate(1);
        for (;;) {
            one.clear();
            Received got = posix.recvmsg(fd, one, 0);
            for (int passed : got.fds()) {
                fds.add(passed);
            }
            if (got.bytes() == 0) {
                fds.forEach(posix::close);
                throw new EOFException("peer closed the connection");
            }
            byte b = one.get(0);
            if (b == '\n') {
                return new Line(text.toString(StandardCharsets.UTF_8), fds.stream().mapToInt(Integer::intValue).toArray());
            }
            if (text.size() >= MAX_LINE) {
                fds.forEach(posix::close);
                throw new IOException("message longer than " + MAX_LINE + " bytes");
            }
            text.write(b);
        }
    }
}
