// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogTextTest {

    @Test
    void aNewlineCannotStartAForgedLine() {
        String containerId = "abc\n2026-11-25 12:00:00 INFO forged line";

        assertThat(LogText.escape(containerId)).isEqualTo("abc\\n2026-11-25 12:00:00 INFO forged line")
                .doesNotContain("\n");
    }

    @Test
    void terminalEscapesAndSeparatorsAreShownNotActedOn() {
        assertThat(LogText.escape("\u001b[2Jx\r\u0085\u2028\u007f")).isEqualTo("\\u001b[2Jx\\r\\u0085\\u2028\\u007f");
    }

    @Test
    void aBackslashInTheInputCannotPassForOurEscape() {
        assertThat(LogText.escape("a\\nb")).isEqualTo("a\\\\nb");
    }

    @Test
    void plainTextIsTheSameObjectAndUnicodeLettersStay() {
        String plain = "mlx5_0 Größe 端口";
        assertThat(LogText.escape(plain)).isSameAs(plain);
    }

    @Test
    void aLongValueIsCutWithItsLength() {
        String huge = "x".repeat(4 * 1024 * 1024);

        assertThat(LogText.escape(huge, 8)).isEqualTo("xxxxxxxx…(4194304 chars)");
        assertThat(LogText.escape("a\nb", 1)).isEqualTo("a…(3 chars)");
        assertThat(LogText.escape(null)).isEqualTo("null");
    }
}
