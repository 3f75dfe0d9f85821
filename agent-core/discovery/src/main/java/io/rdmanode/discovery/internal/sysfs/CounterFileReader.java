// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.discovery.RdmaCounter;
import io.rdmanode.discovery.RdmaCounters;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A prepared {@link RdmaCounters.Reader}: per value its directory (one String per directory, shared) and its file
 * name (one String per distinct name), the path put together in one reused builder when it is read. Holding
 * every value's full path instead kept 43,000 strings of ~150 bytes on a 1,032-device host, for no gain: the
 * open copies the path anyway. Each file is one open, one read of at most 128 bytes into a buffer reused for the
 * whole call, and one close; counters and link codes are parsed from those bytes, without a String.
 */
final class CounterFileReader implements RdmaCounters.Reader {

    private final String[] dirs;
    private final int[] dirOf;
    private final String[] names;
    private final RdmaCounter.Kind[] kinds;

    /** {@code dirs[dirOf[i]] + names[i]} is the i-th value's file; every {@code dirs} entry ends with '/'. */
    CounterFileReader(String[] dirs, int[] dirOf, String[] names, RdmaCounter.Kind[] kinds) {
        this.dirs = dirs;
        this.dirOf = dirOf;
        this.names = names;
        this.kinds = kinds;
    }

    @Override
    public int size() {
        return names.length;
    }

    @Override
    public void read(double[] values) {
        byte[] buf = new byte[128];
        StringBuilder path = new StringBuilder(256);
        int dir = -1;
        int dirLength = 0;
        for (int i = 0; i < names.length; i++) {
            if (dirOf[i] != dir) {
                dir = dirOf[i];
                path.setLength(0);
                path.append(dirs[dir]);
                dirLength = path.length();
            }
            path.setLength(dirLength);
            String file = path.append(names[i]).toString();
            values[i] = switch (kinds[i]) {
                case COUNTER, COUNTER_EXT, HW_COUNTER -> InfinibandCounters.readCounter(file, buf);
                case STATE, PHYS_STATE -> readCoded(file, buf);
                case RATE -> InfinibandCounters.parseRate(InfinibandCounters.readLine(file)).orElse(Double.NaN);
            };
        }
    }

    /**
     * {@code ports/N/state}, {@code ports/N/phys_state} ({@code "4: ACTIVE"}): the leading code of 1 to 9 digits
     * before the colon, after any leading blanks; NaN otherwise (as {@link InfinibandCounters#parseCoded}).
     */
    static double readCoded(String path, byte[] buf) {
        int n;
        try (InputStream in = new FileInputStream(path)) {
            n = in.read(buf);
        } catch (IOException e) {
            return Double.NaN;
        }
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
