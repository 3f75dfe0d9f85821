// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SysfsValuesTest {

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
        assertThat(SysfsValues.parseCounter(file)).isEqualTo(of(expected));
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
        double v = SysfsValues.readCounter(file.toFile(), new byte[64]);
        assertThat(Double.isNaN(v) ? OptionalDouble.empty() : OptionalDouble.of(v)).isEqualTo(of(expected));
    }

    @Test
    void aMissingCounterFileHasNoValue(@TempDir Path dir) {
        assertThat(SysfsValues.readCounter(dir.resolve("gone").toFile(), new byte[64])).isNaN();
    }

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
        "'100 Gb/sec (4X EDR)', 1.25E10",
        "'200 Gb/sec (4X HDR)', 2.5E10",
        "'2.5 Gb/sec (1X SDR)', 3.125E8",
        "'10 Gb/sec (1X FDR10)', 1.25E9",
        "'fast', null"})
    void parsesRatesAsBytesPerSecond(String file, Double expected) {
        assertThat(SysfsValues.parseRate(file)).isEqualTo(of(expected));
    }

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {"'4: ACTIVE', 4", "'5: LinkUp', 5", "'1: DOWN', 1", "'ACTIVE', null"})
    void parsesCodedStates(String file, Double expected) {
        assertThat(SysfsValues.parseCoded(file)).isEqualTo(of(expected));
    }

    private static OptionalDouble of(Double d) {
        return d == null ? OptionalDouble.empty() : OptionalDouble.of(d);
    }
}
