// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes plugin sockets a killed agent left behind (SIGKILL runs no shutdown hook): kubelet keeps dialling a
 * dead endpoint until it restarts, and the directory fills up with one file per pool ever served. Only files
 * that are ours and dead go: the name has our prefix and suffix, the file is a socket (not a symlink or a
 * regular file) and nobody accepts a connection on it. kubelet's {@code kubelet.sock}, its checkpoint and other
 * plugins' sockets never match. Every instance names its sockets with a tag of its own
 * ({@link ResourceNames#socketFileName}), so this removes the dead sockets of any earlier instance (and those of
 * agents from before the tags) while a live instance's sockets (a predecessor still serving during a handover or
 * a surge upgrade) answer and stay.
 */
final class StaleSockets {

    private static final Logger LOG = LoggerFactory.getLogger(StaleSockets.class);

    private StaleSockets() {
    }

    /** Deletes our dead sockets in {@code dir} (absent directory: nothing to do); returns what it deleted. */
    static List<Path> clean(Path dir) {
        List<Path> deleted = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return deleted;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir,
                ResourceNames.SOCKET_PREFIX + "*" + ResourceNames.SOCKET_SUFFIX)) {
            for (Path file : files) {
                if (isDeadSocket(file)) {
                    Files.deleteIfExists(file);
                    deleted.add(file);
                    LOG.info("removed stale plugin socket {} (left by an earlier agent)", file);
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot clean stale plugin sockets in {}: {}", dir, e.getMessage());
        }
        return deleted;
    }

    /** A socket file nobody listens on any more. */
    static boolean isDeadSocket(Path file) {
        return isSocket(file) && !answers(file);
    }

    private static boolean isSocket(Path file) {
        try {
            BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            return attrs.isOther();       // sockets, FIFOs and devices; the connect below tells sockets apart
        } catch (IOException e) {
            return false;
        }
    }

    /** A listening socket accepts at once; a dead one refuses ({@code ECONNREFUSED}). */
    static boolean answers(Path socket) {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            return true;
        } catch (IOException e) {
            return !(e instanceof java.net.ConnectException);
        }
    }
}
