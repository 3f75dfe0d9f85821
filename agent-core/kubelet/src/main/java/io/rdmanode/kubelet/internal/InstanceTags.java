// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Tags that tell the device-plugin sockets of one agent instance from another's in the same directory: the time
 * the host started, in milliseconds, in base 36 (8 characters until 2059). Not the process ID: in a DaemonSet
 * both pods of a surge upgrade may be PID 1 of their own namespace. Later hosts have greater tags, which is how a
 * host tells that a newer instance serves a resource ({@link #newer}).
 */
public final class InstanceTags {

    /**
     * The last tag handed out in this JVM, so that two hosts started in the same millisecond (tests, a host
     * restarted by a settings change) still differ. Static on purpose: uniqueness is per process, not per host.
     */
    private static final AtomicLong LAST = new AtomicLong();

    private InstanceTags() {
    }

    /** A tag greater than every tag handed out before in this JVM, and than the clock's at the previous start. */
    public static String next() {
        return nextAfter(java.util.Optional.empty());
    }

    /**
     * As {@link #next()}, and greater than {@code newest} too (the newest instance tag in the socket directory): a
     * successor is newer than its predecessor even when the clock was stepped back in between, since an instance
     * that finds a newer one serving a resource leaves it alone.
     */
    public static String nextAfter(java.util.Optional<String> newest) {
        long floor = newest.map(tag -> {
            try {
                return Long.parseLong(tag, 36) + 1;
            } catch (NumberFormatException e) {
                return 0L;
            }
        }).orElse(0L);
        long now = Math.max(System.currentTimeMillis(), floor);
        return Long.toString(LAST.updateAndGet(last -> Math.max(last + 1, now)), 36);
    }

    /** The newest instance tag among the socket files of ours in {@code dir}, live or dead. */
    static java.util.Optional<String> newestIn(java.nio.file.Path dir) {
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(dir)) {
            return files.map(p -> ResourceNames.instanceOf(p.getFileName().toString()))
                    .flatMap(java.util.Optional::stream)
                    .max((a, b) -> newer(a, b) ? 1 : newer(b, a) ? -1 : 0);
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return java.util.Optional.empty();
        }
    }

    /** Whether {@code tag} was handed out after {@code than} (tags of the 8-character era compare by number). */
    public static boolean newer(String tag, String than) {
        try {
            return Long.parseLong(tag, 36) > Long.parseLong(than, 36);
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
