// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.discovery.RdmaCounter;
import io.rdmanode.discovery.RdmaCounters;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The values of {@code <sys>/class/infiniband} read at call time ({@code Documentation/ABI/stable/
 * sysfs-class-infiniband}), one reader per file kind, as procfs {@code class_infiniband.go} reads them: unsigned
 * decimal counters, {@code "4: ACTIVE"} coded states and {@code "100 Gb/sec (4X EDR)"} rates. A file that
 * cannot be read or parsed yields NaN or empty (an absent series), never 0.
 */
public final class InfinibandCounters implements RdmaCounters {

    private static final Pattern RATE = Pattern.compile("([0-9]+(?:\\.[0-9]+)?) Gb/sec.*");
    private static final Pattern CODED = Pattern.compile("(\\d{1,9}):.*");

    private final Path classDir;

    public InfinibandCounters(Path sys) {
        this.classDir = sys.resolve("class/infiniband");
    }

    /** {@code board_id}: "Board ID"; {@code hca_type}: "Host Channel Adapter type" (both optional). */
    @Override
    public Optional<String> deviceAttribute(String device, DeviceAttribute attribute) {
        String file = attribute == DeviceAttribute.BOARD_ID ? "board_id" : "hca_type";
        return Optional.ofNullable(readLine(classDir.resolve(device).resolve(file).toString()));
    }

    @Override
    public List<String> counterNames(String device, int port, RdmaCounter.Kind kind) {
        Path dir = directory(device, port, kind);
        if (dir == null || !Files.isDirectory(dir)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, Files::isRegularFile)) {
            files.forEach(f -> out.add(f.getFileName().toString()));
        } catch (IOException e) {
            return List.of();
        }
        out.sort(null);
        return out;
    }

    @Override
    public Reader reader(List<RdmaCounter> counters) {
        int n = counters.size();
        List<Path> dirs = new ArrayList<>();
        Map<String, Integer> dirIndex = new HashMap<>();          // one string per directory (issue 8, item 17)
        Map<String, FileName> names = new HashMap<>();           // one string and C string per file name (issue 23)
        int[] dirOf = new int[n];
        String[] files = new String[n];
        byte[][] cFiles = new byte[n][];
        RdmaCounter.Kind[] kinds = new RdmaCounter.Kind[n];
        for (int i = 0; i < n; i++) {
            RdmaCounter c = counters.get(i);
            kinds[i] = c.kind();
            dirOf[i] = dirIndex.computeIfAbsent(c.device() + '/' + c.port() + '/' + c.kind(), k -> {
                dirs.add(directory(c.device(), c.port(), c.kind()));
                return dirs.size() - 1;
            });
            FileName name = names.computeIfAbsent(file(c), FileName::of);
            files[i] = name.name();
            cFiles[i] = name.cName();
        }
        // libc is bound here, at the first scrape's plan, not when discovery starts: binding takes ~100 ms.
        return new CounterFileReader(dirs.stream().map(d -> d + "/").toArray(String[]::new), dirOf, files, cFiles,
                kinds, CounterFileReader.libcOrNull());
    }

    /** A counter file's name, once as a Java string and once as a NUL-terminated C string for {@code openat}. */
    private record FileName(String name, byte[] cName) {
        static FileName of(String name) {
            byte[] b = name.getBytes(StandardCharsets.UTF_8);   // ASCII in sysfs; UTF-8 for anything else
            return new FileName(name, Arrays.copyOf(b, b.length + 1));
        }
    }

    /** The directory holding {@code c}'s file; for the link attributes the port directory itself. */
    private Path directory(String device, int port, RdmaCounter.Kind kind) {
        Path dev = classDir.resolve(device);
        if (kind == RdmaCounter.Kind.HW_COUNTER && port == 0) {
            return dev.resolve("hw_counters");
        }
        Path portDir = dev.resolve("ports").resolve(Integer.toString(port));
        return switch (kind) {
            case COUNTER -> portDir.resolve("counters");
            case COUNTER_EXT -> portDir.resolve("counters_ext");
            case HW_COUNTER -> portDir.resolve("hw_counters");
            case STATE, PHYS_STATE, RATE -> portDir;
        };
    }

    private static String file(RdmaCounter c) {
        return switch (c.kind()) {
            case COUNTER, COUNTER_EXT, HW_COUNTER -> c.name();
            case STATE -> "state";
            case PHYS_STATE -> "phys_state";
            case RATE -> "rate";
        };
    }

    /** The file's first line, trimmed; null when it cannot be read. Files here are a few bytes long. */
    static String readLine(String path) {
        byte[] buf = new byte[128];
        return firstLine(buf, read(path, buf));
    }

    /** The first line of {@code n} bytes read ({@code < -1}: not readable, null), trimmed. */
    static String firstLine(byte[] buf, int n) {
        if (n < -1) {
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

    /** One read of the file into {@code buf}: the byte count, -1 for an empty file, -2 when it cannot be read. */
    static int read(String path, byte[] buf) {
        try (InputStream in = new FileInputStream(path)) {
            return in.read(buf);
        } catch (IOException e) {
            return -2;
        }
    }

    /**
     * {@code counters/*}, {@code counters_ext/*}, {@code hw_counters/*}: a counter file's value straight from its
     * bytes (the hot path: a 16-HCA host has over a thousand such files per scrape), NaN when the file cannot be
     * read or does not start with an unsigned decimal ({@code N/A (no PMA)}).
     */
    static double readCounter(String path, byte[] buf) {
        return parseCounter(buf, read(path, buf));
    }

    /** The counter in the first {@code n} bytes of {@code buf} (as {@link #readCounter}); NaN for {@code n < 0}. */
    static double parseCounter(byte[] buf, int n) {
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

    /** {@code ports/N/state}, {@code ports/N/phys_state}: the leading code. */
    static OptionalDouble parseCoded(String value) {
        if (value == null) {
            return OptionalDouble.empty();
        }
        Matcher m = CODED.matcher(value);
        return m.matches() ? OptionalDouble.of(Integer.parseInt(m.group(1))) : OptionalDouble.empty();
    }

    /** {@code ports/N/rate}: Gb/s. */
    public static OptionalDouble parseRate(String value) {
        if (value == null) {
            return OptionalDouble.empty();
        }
        Matcher m = RATE.matcher(value);
        return m.matches() ? OptionalDouble.of(Double.parseDouble(m.group(1))) : OptionalDouble.empty();
    }
}
