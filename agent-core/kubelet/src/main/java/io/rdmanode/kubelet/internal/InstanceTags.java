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
        long now = System.currentTimeMillis();
        return Long.toString(LAST.updateAndGet(last -> Math.max(last + 1, now)), 36);
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
