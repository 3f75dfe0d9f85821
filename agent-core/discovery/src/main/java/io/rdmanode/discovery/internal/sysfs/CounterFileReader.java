// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.discovery.RdmaCounter;
import io.rdmanode.discovery.RdmaCounters;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;

/**
 * A prepared {@link RdmaCounters.Reader}: per value its directory (one String per directory, shared) and its file
 * name (one String and one C string per distinct name, shared). Holding every value's full path instead kept
 * 43,000 strings of ~150 bytes on a 1,032-device host, for no gain. Each file is one open, one read of at most 128
 * bytes into a buffer reused for the whole call, and one close; values are parsed from those bytes, without a
 * String. The files of a directory with many of them ({@code counters/}, {@code hw_counters/}) are opened relative
 * to the directory with {@code openat(2)}, through the agent's libc binding: the kernel then walks one path
 * component per file instead of the whole path and the {@code class/infiniband} symlink, and no Java channel is
 * made per file (a {@code SecureDirectoryStream}'s channel cost as much CPU in Java as the three system calls in
 * the kernel: its file descriptor object, cleaner and close; async-profiler, 1,032 devices). A directory with a few
 * files is not worth its own open; those files, and every file when libc cannot be bound, are opened by path.
 */
final class CounterFileReader implements RdmaCounters.Reader {

    /** Fewer files than this in a directory: opened by path (the directory's open and close cost ~2 files). */
    static final int RELATIVE_MIN = 6;

    private final String[] dirs;
    private final int[] dirOf;
    private final String[] names;
    private final byte[][] cNames;
    private final RdmaCounter.Kind[] kinds;
    private final Posix posix;

    /**
     * {@code dirs[dirOf[i]] + names[i]} is the i-th value's file, {@code cNames[i]} its name as a NUL-terminated C
     * string; every {@code dirs} entry ends with '/'. {@code posix}: null reads every file by path.
     */
    CounterFileReader(String[] dirs, int[] dirOf, String[] names, byte[][] cNames, RdmaCounter.Kind[] kinds,
                      Posix posix) {
        this.dirs = dirs;
        this.dirOf = dirOf;
        this.names = names;
        this.cNames = cNames;
        this.kinds = kinds;
        this.posix = posix;
    }

    /** The process's libc, or null when it cannot be bound (the files are then read through Java's file API). */
    static Posix libcOrNull() {
        try {
            return Posix.libc();
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    @Override
    public int size() {
        return names.length;
    }

    @Override
    public void read(double[] values) {
        byte[] buf = new byte[128];
        StringBuilder path = new StringBuilder(256);
        int i = 0;
        while (i < names.length) {
            int dir = dirOf[i];
            int end = i + 1;
            while (end < names.length && dirOf[end] == dir) {
                end++;
            }
            if (end - i < RELATIVE_MIN || posix == null || !readRelative(dir, i, end, values, buf)) {
                path.setLength(0);
                path.append(dirs[dir]);
                int dirLength = path.length();
                for (int k = i; k < end; k++) {
                    path.setLength(dirLength);
                    values[k] = parse(kinds[k], buf, InfinibandCounters.read(path.append(names[k]).toString(), buf));
                }
            }
            i = end;
        }
    }

    /** Values {@code from} to {@code to} of directory {@code dir}, opened relative to it; false: open them by path. */
    private boolean readRelative(int dir, int from, int to, double[] values, byte[] buf) {
        int dirFd;
        try {
            dirFd = posix.open(dirs[dir], Posix.O_RDONLY | Posix.O_CLOEXEC);
        } catch (PosixException e) {
            return false;
        }
        try {
            for (int k = from; k < to; k++) {
                values[k] = parse(kinds[k], buf, read(dirFd, cNames[k], buf));
            }
            return true;
        } finally {
            closeQuietly(dirFd);
        }
    }

    /** As {@link InfinibandCounters#read(String, byte[])}: byte count, -1 empty, -2 not readable. */
    private int read(int dirFd, byte[] name, byte[] buf) {
        int fd;
        try {
            fd = posix.openat(dirFd, name, Posix.O_RDONLY | Posix.O_CLOEXEC);
        } catch (PosixException e) {
            return -2;
        }
        try {
            long n = posix.read(fd, buf, buf.length);
            return n == 0 ? -1 : (int) n;
        } catch (PosixException e) {
            return -2;                                         // e.g. EOPNOTSUPP from a counter without a PMA
        } finally {
            closeQuietly(fd);
        }
    }

    private void closeQuietly(int fd) {
        try {
            posix.close(fd);
        } catch (PosixException e) {
            // close(2) of a read-only sysfs file has nothing to flush; the descriptor is released either way
        }
    }

    private static double parse(RdmaCounter.Kind kind, byte[] buf, int n) {
        return switch (kind) {
            case COUNTER, COUNTER_EXT, HW_COUNTER -> InfinibandCounters.parseCounter(buf, n);
            case STATE, PHYS_STATE -> parseCoded(buf, n);
            case RATE -> InfinibandCounters.parseRate(InfinibandCounters.firstLine(buf, n)).orElse(Double.NaN);
        };
    }

    /** {@code ports/N/state}, {@code ports/N/phys_state}, read: as {@link #parseCoded(byte[], int)}. */
    static double readCoded(String path, byte[] buf) {
        return parseCoded(buf, InfinibandCounters.read(path, buf));
    }

    /**
     * {@code "4: ACTIVE"}: the leading code of 1 to 9 digits before the colon, after any leading blanks; NaN
     * otherwise (as {@link InfinibandCounters#parseCoded}).
     */
    static double parseCoded(byte[] buf, int n) {
        int i = 0;
        while (i < n && buf[i] != '\n' && (buf[i] & 0xff) <= ' ') {
            i++;
        }
        int start = i;
        int code = 0;
        for (; i < n && buf[i] >= '0' && buf[i] <= '9'; i++) {
            if (i - start == 9) {
                return Double.NaN;
            }
            code = code * 10 + (buf[i] - '0');
        }
        return i > start && i < n && buf[i] == ':' ? code : Double.NaN;
    }
}
