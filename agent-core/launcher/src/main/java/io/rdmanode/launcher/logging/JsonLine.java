// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher.logging;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import org.slf4j.event.Level;

/**
 * One log event as one JSON object on one line, written with jackson-core (the agent's one JSON library). A
 * class of its own so that Jackson is loaded only when {@code agent.runtime.log.format = json}: the text format,
 * the default, starts without it.
 */
final class JsonLine {

    /** Thread-safe once configured; one per process. */
    private static final JsonFactory FACTORY = new JsonFactory();

    private JsonLine() {
    }

    static String write(Instant at, Level level, String thread, String logger, String message, String error,
            String stack) {
        StringWriter out = new StringWriter(160);
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("ts", at.toString());
            json.writeStringField("level", level.toString());
            json.writeStringField("logger", logger);
            json.writeStringField("thread", thread);
            json.writeStringField("msg", message);
            if (error != null) {
                json.writeStringField("error", error);
                json.writeStringField("stack", stack);
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("a StringWriter does not fail", e);
        }
        return out.toString();
    }
}
