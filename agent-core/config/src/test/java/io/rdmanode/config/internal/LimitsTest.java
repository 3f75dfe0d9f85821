// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A range refusal names the bound, found through the definition's own validate (as Felix MetaType answers). */
class LimitsTest {

    private static AttributeSchema range(AttributeType type, long min, long max) {
        return new AttributeSchema("x", type, 0, false, List.of(), v -> {
            long n = type == AttributeType.STRING ? v.length() : Long.parseLong(v);
            return n > max ? "%greater than maximum" : n < min ? "%less than minimum" : "";
        });
    }

    @Test
    void numbersNameTheirMaximumAndMinimum() {
        assertThat(Limits.describe(range(AttributeType.INTEGER, 0, 65535), "99999", true))
                .isEqualTo("greater than the maximum 65535");
        assertThat(Limits.describe(range(AttributeType.INTEGER, 2, 1024), "1", false))
                .isEqualTo("less than the minimum 2");
        assertThat(Limits.describe(range(AttributeType.LONG, 10, 60000), "120000", true))
                .isEqualTo("greater than the maximum 60000");
        assertThat(Limits.describe(range(AttributeType.LONG, 0, Long.MAX_VALUE / 8), "-1", false))
                .isEqualTo("less than the minimum 0");
        // A doubling step that jumps past the whole accepted range lands below the minimum; the range is found.
        assertThat(Limits.describe(range(AttributeType.INTEGER, 0, 10239), "99999", true))
                .isEqualTo("greater than the maximum 10239");
        assertThat(Limits.describe(range(AttributeType.LONG, 100, 600000), "3600000", true))
                .isEqualTo("greater than the maximum 600000");
        assertThat(Limits.describe(range(AttributeType.LONG, 100, 600000), "1", false))
                .isEqualTo("less than the minimum 100");
    }

    @Test
    void stringsNameTheirMaximumLength() {
        assertThat(Limits.describe(range(AttributeType.STRING, 1, 90), "x".repeat(120), true))
                .isEqualTo("length 120 is greater than the maximum length 90");
    }

    @Test
    void aMessageWithoutAFindableBoundStillSaysWhich() {
        AttributeSchema never = new AttributeSchema("x", AttributeType.INTEGER, 0, false, List.of(),
                v -> "%greater than maximum");
        assertThat(Limits.describe(never, "5", true)).isEqualTo("greater than the maximum");
    }

    @Test
    void valueConverterRefusesWithTheBound() throws Exception {
        var value = com.typesafe.config.ConfigValueFactory.fromAnyRef(99999);
        try {
            ValueConverter.convert(range(AttributeType.INTEGER, 0, 65535), value);
            throw new AssertionError("accepted");
        } catch (ValueConverter.ConversionException e) {
            assertThat(e.getMessage()).isEqualTo("99999 is not allowed: greater than the maximum 65535");
        }
    }

    @Test
    void parserMessagesAreExplained() {
        assertThat(HoconFile.explained("Expecting close brace } or a comma, got end of file"))
                .endsWith("(an object { or a list [ above is not closed)");
        assertThat(HoconFile.explained("something new")).isEqualTo("something new");
    }
}
