// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher.logging;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

class LogLineFormatterTest {

    static final Instant AT = Instant.parse("2026-11-22T10:15:30.123Z");

    @Test
    void textLineNamesTimeLevelThreadAndShortLogger() {
        String line = LogLineFormatter.format(LogFormat.TEXT, AT, Level.WARN, "rdma-agent-config-apply",
                "io.rdmanode.config.internal.ConfigReloader", "config rejected revision=3", null);
        assertThat(line).isEqualTo("2026-11-22T10:15:30.123Z WARN  [rdma-agent-config-apply] i.r.c.i.ConfigReloader"
                + " - config rejected revision=3");
    }

    @Test
    void jsonLineIsOneParseableObjectEvenWithQuotesNewlinesAndControlCharacters() {
        String message = "bad \"value\"\n\tat line 3 \\ \u0001";
        String line = LogLineFormatter.format(LogFormat.JSON, AT, Level.ERROR, "main", "io.rdmanode.X", message,
                new IllegalStateException("boom"));

        assertThat(line).doesNotContain("\n");
        JsonObject json = JsonParser.parseString(line).getAsJsonObject();
        assertThat(json.get("ts").getAsString()).isEqualTo("2026-11-22T10:15:30.123Z");
        assertThat(json.get("level").getAsString()).isEqualTo("ERROR");
        assertThat(json.get("logger").getAsString()).isEqualTo("io.rdmanode.X");
        assertThat(json.get("msg").getAsString()).isEqualTo(message);
        assertThat(json.get("error").getAsString()).isEqualTo("java.lang.IllegalStateException: boom");
        assertThat(json.get("stack").getAsString()).contains("LogLineFormatterTest");
    }
}
