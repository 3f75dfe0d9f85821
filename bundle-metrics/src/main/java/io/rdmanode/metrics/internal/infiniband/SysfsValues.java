// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and parses the small sysfs attribute files a scrape needs, as procfs {@code class_infiniband.go}
 * does: unsigned decimal counters, {@code "4: ACTIVE"} coded states and {@code "100 Gb/sec (4X EDR)"} rates.
 * A file that cannot be read or parsed yields an empty value (absent series), never 0: counters of devices
 * without a PMA read {@code N/A (no PMA)}, and the kernel answers EINVAL/EOPNOTSUPP for some others.
 */
final class SysfsValues {

    private static final Pattern RATE = Pattern.compile("([0-9]+(?:\\.[0-9]+)?) Gb/sec.*");
    private static final Pattern CODED = Pattern.compile("(\\d{1,9}):.*");
    /** procfs: a rate's Gb/s times 125,000,000 is its bytes per second. */
    private static final double BYTES_PER_GBIT = 125_000_000d;

    private SysfsValues() {
    }

    /** The file's first line, trimmed; null when it cannot be read. Files here are a few bytes long. */
    static String readLine(File file) {
        byte[] buf = new byte[128];
        int n;
        try (InputStream in = new FileInputStream(file)) {
            n = in.read(buf);
        } catch (IOException e) {
            return null;
        }
        if (n <= 0) {
            return "";
        }
        int end = 0;
        while (end < n && buf[end] != '\n') {
            end++;
        }
        return new String(buf, 0, end, StandardCharsets.US_ASCII).trim();
    }

    /**
     * A counter file's value straight from its bytes (the hot path: a 16-HCA host has over a thousand such
     * files per scrape), NaN when the file cannot be read or does not start with an unsigned decimal.
     */
    static double readCounter(File file, byte[] buf) {
        return readCounter(file.getPath(), buf);
    }

    /** {@link #readCounter(File, byte[])} by path name, the hot path's form (no {@code File} kept per file). */
    static double readCounter(String path, byte[] buf) {
        int n;
        try (InputStream in = new FileInputStream(path)) {
            n = in.read(buf);
        } catch (IOException e) {
            return Double.NaN;
        }
        long v = 0;
        int i = 0;
        for (; i < n && buf[i] >= '0' && buf[i] <= '9'; i++) {
            if (i == 18) {                                     // 19+ digits may not fit a signed long
                return parseCounter(new String(buf, 0, n, StandardCharsets.US_ASCII).trim()).orElse(Double.NaN);
            }
            v = v * 10 + (buf[i] - '0');
        }
        boolean ends = i > 0 && (i == n || buf[i] == '\n' || buf[i] == ' ');
        return ends ? v : Double.NaN;
    }

    /** An unsigned 64-bit decimal as a double (Prometheus values are float64, as in node_exporter). */
    static OptionalDouble parseCounter(String value) {
        if (value == null || value.isEmpty() || value.charAt(0) < '0' || value.charAt(0) > '9') {
            return OptionalDouble.empty();
        }
        try {
            Long.parseUnsignedLong(value);                     // validates: an unsigned 64-bit decimal
            // One rounding step, decimal to nearest double, as Go's float64(uint64) and Python's float(int):
            // halving a value above 2^63 first and doubling it after rounds twice (issue 8, item 12).
            return OptionalDouble.of(Double.parseDouble(value));
        } catch (NumberFormatException e) {
            return OptionalDouble.empty();
        }
    }

    /** {@code ports/N/state}, {@code phys_state}: the leading code. */
    static OptionalDouble parseCoded(String value) {
        if (value == null) {
            return OptionalDouble.empty();
        }
        Matcher m = CODED.matcher(value);
        return m.matches() ? OptionalDouble.of(Integer.parseInt(m.group(1))) : OptionalDouble.empty();
    }

    /** {@code ports/N/rate}: bytes per second. */
    static OptionalDouble parseRate(String value) {
        if (value == null) {
            return OptionalDouble.empty();
        }
        Matcher m = RATE.matcher(value);
        return m.matches() ? OptionalDouble.of(Double.parseDouble(m.group(1)) * BYTES_PER_GBIT)
                : OptionalDouble.empty();
    }
}
