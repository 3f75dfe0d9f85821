// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import java.util.Map;

/**
 * The small JSON the plugin writes (device-info files, {@code _INFO} env): nested maps of strings, in the maps'
 * iteration order. A JSON library would be a bundle of its own for a dozen lines.
 */
final class Json {

    private Json() {
    }

    /** {@code value} is a String or a Map of String to such values. */
    static String write(Map<String, ?> value) {
        StringBuilder b = new StringBuilder();
        object(value, b);
        return b.toString();
    }

    private static void object(Map<String, ?> m, StringBuilder b) {
        b.append('{');
        boolean first = true;
        for (Map.Entry<String, ?> e : m.entrySet()) {
            if (!first) {
                b.append(',');
            }
            first = false;
            string(e.getKey(), b);
            b.append(':');
            if (e.getValue() instanceof Map<?, ?> nested) {
                @SuppressWarnings("unchecked")
                Map<String, ?> typed = (Map<String, ?>) nested;
                object(typed, b);
            } else {
                string(String.valueOf(e.getValue()), b);
            }
        }
        b.append('}');
    }

    private static void string(String s, StringBuilder b) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
