// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.agent.LoggingControl;
import io.rdmanode.launcher.logging.LogFormat;
import io.rdmanode.launcher.logging.LogSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

class LiveLoggingTest {

    private final ByteArrayOutputStream lines = new ByteArrayOutputStream();

    @AfterEach
    void restore() {
        LogSettings.configure(Level.INFO, LogFormat.TEXT);
        LogSettings.redirect(System.err);
    }

    @Test
    void switchesTheBackendToJsonAndDebugAndKeepsWhatIsNotGiven() {
        LogSettings.redirect(new PrintStream(lines, true, StandardCharsets.UTF_8));
        LogSettings.configure(Level.INFO, LogFormat.TEXT);
        LoggingControl control = new LiveLogging(Level.INFO, LogFormat.TEXT);

        control.configure(LoggingControl.Level.DEBUG, LoggingControl.Format.JSON);
        LoggerFactory.getLogger("io.rdmanode.test").debug("after the switch");
        control.configure(null, LoggingControl.Format.TEXT);

        assertThat(control.level()).isEqualTo(LoggingControl.Level.DEBUG);
        assertThat(control.format()).isEqualTo(LoggingControl.Format.TEXT);
        assertThat(lines.toString(StandardCharsets.UTF_8)).contains("{\"ts\":")
                .contains("\"msg\":\"after the switch\"");
    }

    @Test
    void parsesConfigurationWordsAndNamesTheAcceptedOnes() {
        assertThat(LoggingControl.parseLevel(" Warn ")).isEqualTo(LoggingControl.Level.WARN);
        assertThat(LoggingControl.parseFormat("json")).isEqualTo(LoggingControl.Format.JSON);
        assertThatThrownBy(() -> LoggingControl.parseFormat("xml")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown log format 'xml' (expected text or json)");
    }
}
