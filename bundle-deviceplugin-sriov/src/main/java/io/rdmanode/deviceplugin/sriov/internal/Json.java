// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The small JSON the plugin writes (device-info files, {@code _INFO} env): nested maps of strings, in the maps'
 * iteration order, through jackson-core's streaming writer (the agent's one JSON library).
 */
final class Json {

    private static final JsonFactory FACTORY = new JsonFactory();

    private Json() {
    }

    /** {@code value} is a String or a Map of String to such values. */
    static String write(Map<String, ?> value) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            object(value, g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);            // a StringWriter does not fail
        }
        return out.toString();
    }

    private static void object(Map<String, ?> m, JsonGenerator g) throws IOException {
        g.writeStartObject();
        for (Map.Entry<String, ?> e : m.entrySet()) {
            g.writeFieldName(e.getKey());
            if (e.getValue() instanceof Map<?, ?> nested) {
                @SuppressWarnings("unchecked")
                Map<String, ?> typed = (Map<String, ?>) nested;
                object(typed, g);
            } else {
                g.writeString(String.valueOf(e.getValue()));
            }
        }
        g.writeEndObject();
    }
}
