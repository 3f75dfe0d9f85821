// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A jar's identity on disk without reading it, as git's index keeps one: device, inode, size, modification and
 * change time, one {@code stat}. Any write to the file, or a file put in its place, changes it; the change time
 * cannot be set back by a tool (a {@code cp -p} or an unpacked package keeps the modification time, not that).
 * A stamp taken within {@link #SETTLE_NANOS} of the file's last change is not trusted: a write in the same clock
 * tick would not change it (git's "racy" entries).
 */
final class JarStamp {

    /** A digest read from a jar, and the jar's stamp when it was read. */
    record Known(String stamp, String digest) {
    }

    static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(2);

    private JarStamp() {
    }

    /** The stamp of {@code jar}, or null when it cannot be read (gone, or a file system without unix attributes). */
    static String of(Path jar) {
        try {
            Map<String, Object> stat = Files.readAttributes(jar, "unix:dev,ino,size,lastModifiedTime,ctime");
            return stat.get("dev") + ":" + stat.get("ino") + ":" + stat.get("size") + ":"
                    + nanos(stat.get("lastModifiedTime")) + ":" + nanos(stat.get("ctime"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return null;
        }
    }

    /** Whether the file's last change (its change time) is at least {@link #SETTLE_NANOS} old. */
    static boolean settled(String stamp) {
        long changed = Long.parseLong(stamp.substring(stamp.lastIndexOf(':') + 1));
        long now = TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis());
        return now - changed >= SETTLE_NANOS;
    }

    private static long nanos(Object time) {
        return ((FileTime) time).to(TimeUnit.NANOSECONDS);
    }
}
