// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.discovery.RdmaCounter;
import io.rdmanode.discovery.RdmaCounters;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * A prepared {@link RdmaCounters.Reader}: per value its directory (one String and one Path per directory, shared)
 * and its file name (one String and one relative Path per distinct name). Holding every value's full path instead
 * kept 43,000 strings of ~150 bytes on a 1,032-device host, for no gain. Each file is one open, one read of at
 * most 128 bytes into a buffer reused for the whole call, and one close; values are parsed from those bytes,
 * without a String. The files of a directory with many of them ({@code counters/}, {@code hw_counters/}) are
 * opened relative to the directory ({@code openat(2)} through a {@link SecureDirectoryStream}): the kernel then
 * walks one path component per file instead of the whole path and the {@code class/infiniband} symlink, about a
 * fifth less CPU per file (a 41,000-file tree on tmpfs, C1). A directory with a few files is not worth its own
 * open; those files are opened by path.
 */
final class CounterFileReader implements RdmaCounters.Reader {

    /** Fewer files than this in a directory: opened by path (the directory's open, dup and close cost ~3 files). */
    static final int RELATIVE_MIN = 6;
    private static final Set<OpenOption> READ = Set.of(StandardOpenOption.READ);

    private final String[] dirs;
    private final Path[] dirPaths;
    private final int[] dirOf;
    private final String[] names;
    private final Path[] relative;
    private final RdmaCounter.Kind[] kinds;

    /**
     * {@code dirs[dirOf[i]] + names[i]} is the i-th value's file, {@code relative[i]} its name as a relative path;
     * every {@code dirs} entry ends with '/', {@code dirPaths} are the same directories.
     */
    CounterFileReader(String[] dirs, Path[] dirPaths, int[] dirOf, String[] names, Path[] relative,
                      RdmaCounter.Kind[] kinds) {
        this.dirs = dirs;
        this.dirPaths = dirPaths;
        this.dirOf = dirOf;
        this.names = names;
        this.relative = relative;
        this.kinds = kinds;
    }

    @Override
    public int size() {
        return names.length;
    }

    @Override
    public void read(double[] values) {
        byte[] buf = new byte[128];
        ByteBuffer wrapped = ByteBuffer.wrap(buf);
        StringBuilder path = new StringBuilder(256);
        int i = 0;
        while (i < names.length) {
            int dir = dirOf[i];
            int end = i + 1;
            while (end < names.length && dirOf[end] == dir) {
                end++;
            }
            if (end - i < RELATIVE_MIN || !readRelative(dir, i, end, values, buf, wrapped)) {
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
    private boolean readRelative(int dir, int from, int to, double[] values, byte[] buf, ByteBuffer wrapped) {
        DirectoryStream<Path> stream;
        try {
            stream = Files.newDirectoryStream(dirPaths[dir]);
        } catch (IOException | RuntimeException e) {
            return false;
        }
        try (stream) {
            if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
                return false;
            }
            for (int k = from; k < to; k++) {
                values[k] = parse(kinds[k], buf, read(secure, relative[k], wrapped));
            }
            return true;
        } catch (IOException e) {
            return true;                                       // closing the directory; the values are read
        }
    }

    /** As {@link InfinibandCounters#read(String, byte[])}: byte count, -1 empty, -2 not readable. */
    private static int read(SecureDirectoryStream<Path> dir, Path name, ByteBuffer buf) {
        buf.clear();
        try (SeekableByteChannel in = dir.newByteChannel(name, READ)) {
            return in.read(buf);
        } catch (IOException | RuntimeException e) {
            return -2;
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
