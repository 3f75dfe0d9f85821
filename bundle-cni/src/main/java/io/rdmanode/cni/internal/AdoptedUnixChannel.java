// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A JDK {@link ServerSocketChannel} on a listening Unix socket the JDK did not create: a predecessor's, handed over
 * as a descriptor (issue 27). The JDK has no public way to wrap a descriptor (only {@code System.inheritedChannel}
 * for stdin), and reaching into {@code sun.nio.ch} would need {@code --add-opens} and break between 17 and 25. So
 * the JDK opens a channel of its own on a temporary path, which makes it a listening Unix server channel with a
 * descriptor, found through {@code /proc} (the socket inode bound to that path in {@code /proc/net/unix}, among
 * this process's {@code /proc/self/fd}); {@code dup3} then puts the adopted socket under that very descriptor
 * number, atomically. The JDK channel keeps working as it is (non-blocking set afterwards, by the JDK, on the
 * adopted socket) and accepts what waits in the adopted backlog; only its {@code getLocalAddress} names the
 * temporary path. The same lookup finds the descriptor of a channel bound at a path, to offer it to a successor.
 */
final class AdoptedUnixChannel {

    private AdoptedUnixChannel() {
    }

    /** A blocking JDK channel accepting on {@code fd} (consumed: closed here in every case). */
    static ServerSocketChannel adopt(Posix posix, Path path, int fd) throws IOException {
        return adoptAt(posix, path, fd).channel();
    }

    /** An adopted channel and the descriptor it accepts on (the channel's own number). */
    record Adopted(ServerSocketChannel channel, int fd) {
    }

    /**
     * {@link #adopt}, with the channel's descriptor: other descriptors of the same socket may be open in this
     * process meanwhile (the handover's copy of a door taken back), so a lookup by path could name one of those.
     */
    static Adopted adoptAt(Posix posix, Path path, int fd) throws IOException {
        Path temp = path.resolveSibling("." + path.getFileName() + ".adopt-" + ProcessHandle.current().pid());
        Files.deleteIfExists(temp);
        ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.bind(UnixDomainSocketAddress.of(temp));
            int own = descriptorBoundTo(temp).orElseThrow(() -> new IOException(
                    "cannot find the descriptor of the JDK channel bound to " + temp + " in /proc"));
            posix.dup3(fd, own, Posix.O_CLOEXEC);
            return new Adopted(channel, own);
        } catch (IOException | PosixException e) {
            channel.close();
            throw new IOException("cannot adopt the CNI socket " + path + " from the predecessor: " + e.getMessage(), e);
        } finally {
            posix.close(fd);
            Files.deleteIfExists(temp);
        }
    }

    /** This process's descriptor of the listening Unix socket bound to {@code path}, if /proc shows one. */
    static OptionalInt descriptorBoundTo(Path path) throws IOException {
        Set<String> inodes = new HashSet<>();
        List<String> lines = Files.readAllLines(Path.of("/proc/net/unix"));
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.trim().split("\\s+");
            // Num RefCount Protocol Flags Type St Inode Path
            if (f.length >= 8 && f[7].equals(path.toString())) {
                inodes.add("socket:[" + f[6] + "]");
            }
        }
        if (inodes.isEmpty()) {
            return OptionalInt.empty();
        }
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (inodes.contains(Files.readSymbolicLink(fd).toString())) {
                        return OptionalInt.of(Integer.parseInt(fd.getFileName().toString()));
                    }
                } catch (IOException closedMeanwhile) {
                    // a descriptor another thread closed while listing
                }
            }
        }
        return OptionalInt.empty();
    }
}
