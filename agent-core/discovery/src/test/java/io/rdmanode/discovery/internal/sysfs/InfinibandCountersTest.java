// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Discovery's readers of the values a scrape asks for (moved here from bundle-metrics with the reading, issue 19). */
class InfinibandCountersTest {

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
        "0, 0",
        "42, 42",
        "9223372036854775807, 9.223372036854775807E18",
        "18446744073709551615, 1.8446744073709552E19",
        "'N/A (no PMA)', null",
        "'', null",
        "-1, null",
        "12abc, null",
        "null, null"})
    void parsesUnsignedCounters(String file, Double expected) {
        assertThat(InfinibandCounters.parseCounter(file)).isEqualTo(of(expected));
    }

    /** The byte-level reader of the scrape path agrees with the parser, file contents as the kernel writes them. */
    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
        "0, 0",
        "42, 42",
        "999999999999999999, 9.99999999999999999E17",
        "9223372036854775807, 9.223372036854775807E18",
        "9999999999999999999, 1.0E19",
        "18446744073709551615, 1.8446744073709552E19",
        "'N/A (no PMA)', null",
        "'', null",
        "12abc, null"})
    void readsCounterFiles(String content, Double expected, @TempDir Path dir) throws IOException {
        Path file = dir.resolve("counter");
        Files.writeString(file, (content == null ? "" : content) + "\n");
        double v = InfinibandCounters.readCounter(file.toString(), new byte[64]);
        assertThat(Double.isNaN(v) ? OptionalDouble.empty() : OptionalDouble.of(v)).isEqualTo(of(expected));
    }

    @Test
    void aMissingCounterFileHasNoValue(@TempDir Path dir) {
        assertThat(InfinibandCounters.readCounter(dir.resolve("gone").toString(), new byte[64])).isNaN();
    }

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
        "'100 Gb/sec (4X EDR)', 100",
        "'200 Gb/sec (4X HDR)', 200",
        "'2.5 Gb/sec (1X SDR)', 2.5",
        "'10 Gb/sec (1X FDR10)', 10",
        "'fast', null"})
    void parsesRatesInGbPerSecond(String file, Double expected) {
        assertThat(InfinibandCounters.parseRate(file)).isEqualTo(of(expected));
    }

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {"'4: ACTIVE', 4", "'5: LinkUp', 5", "'1: DOWN', 1", "'ACTIVE', null"})
    void parsesCodedStates(String file, Double expected) {
        assertThat(InfinibandCounters.parseCoded(file)).isEqualTo(of(expected));
    }

    /** The byte-level reader of state files agrees with the parser on what the file's first line holds. */
    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {"'4: ACTIVE', 4", "'5: LinkUp', 5", "'1: DOWN', 1", "'ACTIVE', null",
        "' 4: ACTIVE', 4", "'', null", "'4', null", "'123456789: X', 123456789", "'1234567890: X', null",
        "'4 : ACTIVE', null"})
    void readsStateFilesAsTheParserReadsThem(String content, Double expected, @TempDir Path dir) throws IOException {
        Path file = dir.resolve("state");
        Files.writeString(file, content + "\n");
        double v = CounterFileReader.readCoded(file.toString(), new byte[128]);
        assertThat(Double.isNaN(v) ? OptionalDouble.empty() : OptionalDouble.of(v)).isEqualTo(of(expected))
                .isEqualTo(InfinibandCounters.parseCoded(InfinibandCounters.readLine(file.toString())));
        assertThat(CounterFileReader.readCoded(dir.resolve("gone").toString(), new byte[128])).isNaN();
    }

    /** A prepared reader reads every kind, in any order of directories, and leaves NaN for what is missing. */
    @Test
    void preparedReaderReadsEveryKind(@TempDir Path sys) throws IOException {
        Path port = Files.createDirectories(sys.resolve("class/infiniband/mlx5_0/ports/1"));
        Files.createDirectories(port.resolve("counters"));
        Files.createDirectories(port.resolve("hw_counters"));
        Files.createDirectories(sys.resolve("class/infiniband/mlx5_0/hw_counters"));
        Files.writeString(port.resolve("counters/port_rcv_data"), "12\n");
        Files.writeString(port.resolve("hw_counters/out_of_buffer"), "7\n");
        Files.writeString(sys.resolve("class/infiniband/mlx5_0/hw_counters/lifespan"), "10\n");
        Files.writeString(port.resolve("state"), "4: ACTIVE\n");
        Files.writeString(port.resolve("phys_state"), "5: LinkUp\n");
        Files.writeString(port.resolve("rate"), "100 Gb/sec (4X EDR)\n");
        var reader = new InfinibandCounters(sys).reader(java.util.List.of(
                new io.rdmanode.discovery.RdmaCounter("mlx5_0", 1, io.rdmanode.discovery.RdmaCounter.Kind.COUNTER,
                        "port_rcv_data"),
                io.rdmanode.discovery.RdmaCounter.link("mlx5_0", 1, io.rdmanode.discovery.RdmaCounter.Kind.STATE),
                new io.rdmanode.discovery.RdmaCounter("mlx5_0", 0,
                        io.rdmanode.discovery.RdmaCounter.Kind.HW_COUNTER, "lifespan"),
                new io.rdmanode.discovery.RdmaCounter("mlx5_0", 1,
                        io.rdmanode.discovery.RdmaCounter.Kind.HW_COUNTER, "out_of_buffer"),
                io.rdmanode.discovery.RdmaCounter.link("mlx5_0", 1, io.rdmanode.discovery.RdmaCounter.Kind.PHYS_STATE),
                io.rdmanode.discovery.RdmaCounter.link("mlx5_0", 1, io.rdmanode.discovery.RdmaCounter.Kind.RATE),
                new io.rdmanode.discovery.RdmaCounter("mlx5_0", 1, io.rdmanode.discovery.RdmaCounter.Kind.COUNTER,
                        "gone")));
        double[] values = new double[reader.size()];
        reader.read(values);
        assertThat(values).containsExactly(12, 4, 10, 7, 5, 100, Double.NaN);
    }

    /**
     * A directory with many counters is read relative to the directory: the same values, a missing or
     * unparsable file without one, and a directory that is gone leaves all of its values out.
     */
    @Test
    void preparedReaderReadsADirectoryOfManyCountersRelativeToIt(@TempDir Path sys) throws IOException {
        Path hw = Files.createDirectories(sys.resolve("class/infiniband/mlx5_0/ports/1/hw_counters"));
        var counters = new java.util.ArrayList<io.rdmanode.discovery.RdmaCounter>();
        var expected = new java.util.ArrayList<Double>();
        for (int i = 0; i < CounterFileReader.RELATIVE_MIN + 2; i++) {
            Files.writeString(hw.resolve("c" + i), i == 3 ? "N/A (no PMA)\n" : (1000 + i) + "\n");
            counters.add(new io.rdmanode.discovery.RdmaCounter("mlx5_0", 1,
                    io.rdmanode.discovery.RdmaCounter.Kind.HW_COUNTER, "c" + i));
            expected.add(i == 3 ? Double.NaN : 1000d + i);
        }
        counters.add(new io.rdmanode.discovery.RdmaCounter("mlx5_0", 1,
                io.rdmanode.discovery.RdmaCounter.Kind.HW_COUNTER, "gone"));
        expected.add(Double.NaN);
        for (int i = 0; i < CounterFileReader.RELATIVE_MIN; i++) {
            counters.add(new io.rdmanode.discovery.RdmaCounter("mlx5_9", 1,
                    io.rdmanode.discovery.RdmaCounter.Kind.HW_COUNTER, "c" + i));
            expected.add(Double.NaN);
        }
        var reader = new InfinibandCounters(sys).reader(counters);
        double[] values = new double[reader.size()];
        reader.read(values);
        assertThat(values).containsExactly(expected.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /**
     * Read relative to its directory through libc: a name that is a directory (read fails: EISDIR) and a name
     * that is missing (openat fails) have no value, and no descriptor outlives a read, failed ones included.
     */
    @Test
    void theRelativeReadLeavesNoDescriptorOpenAndFailedReadsHaveNoValue(@TempDir Path sys) throws IOException {
        Path hw = Files.createDirectories(sys.resolve("class/infiniband/mlx5_0/hw_counters"));
        var counters = new java.util.ArrayList<io.rdmanode.discovery.RdmaCounter>();
        for (int i = 0; i < CounterFileReader.RELATIVE_MIN; i++) {
            Files.writeString(hw.resolve("c" + i), i + "\n");
            counters.add(new io.rdmanode.discovery.RdmaCounter("mlx5_0", 0,
                    io.rdmanode.discovery.RdmaCounter.Kind.HW_COUNTER, "c" + i));
        }
        Files.createDirectory(hw.resolve("a_directory"));
        for (String odd : List.of("a_directory", "missing")) {
            counters.add(new io.rdmanode.discovery.RdmaCounter("mlx5_0", 0,
                    io.rdmanode.discovery.RdmaCounter.Kind.HW_COUNTER, odd));
        }
        var reader = new InfinibandCounters(sys).reader(counters);
        double[] values = new double[reader.size()];
        reader.read(values);
        long before = openDescriptors();
        for (int round = 0; round < 200; round++) {
            reader.read(values);
        }

        assertThat(values).containsExactly(0, 1, 2, 3, 4, 5, Double.NaN, Double.NaN);
        assertThat(openDescriptors()).isLessThanOrEqualTo(before);
    }

    private static long openDescriptors() throws IOException {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    private static OptionalDouble of(Double d) {
        return d == null ? OptionalDouble.empty() : OptionalDouble.of(d);
    }
}
