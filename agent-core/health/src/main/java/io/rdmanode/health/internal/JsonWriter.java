// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Writes a tree of maps, collections, arrays, strings, numbers, booleans and nulls as pretty-printed JSON
 * (RFC 8259, two-space indentation). Enums and unknown objects become their {@code toString()}, records their
 * components, an empty {@link Optional} {@code null}; NaN and infinities, which JSON cannot express, become
 * {@code null}. A hand-written writer because the agent keeps its footprint small: no JSON library at runtime.
 */
final class JsonWriter {

    /** Deep enough for any status tree; stops a self-containing map from overflowing the stack. */
    private static final int MAX_DEPTH = 64;

    private final StringBuilder out = new StringBuilder(256);

    private JsonWriter() {
    }

    static String write(Object value) {
        JsonWriter writer = new JsonWriter();
        writer.value(value, 0);
        return writer.out.append('\n').toString();
    }

    private void value(Object value, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("cannot write JSON: nesting deeper than " + MAX_DEPTH + " levels");
        }
        if (value instanceof Optional<?> optional) {
            value = optional.orElse(null);
        }
        if (value == null) {
            out.append("null");
        } else if (value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Number number) {
            number(number);
        } else if (value instanceof Map<?, ?> map) {
            object(map.entrySet().iterator(), depth);
        } else if (value instanceof Collection<?> collection) {
            array(collection.iterator(), depth);
        } else if (value.getClass().isArray()) {
            array(new ArrayIterator(value), depth);
        } else if (value instanceof Record record) {
            object(new RecordIterator(record), depth);
        } else {
            string(value.toString());
        }
    }

    private void number(Number number) {
        if ((number instanceof Double || number instanceof Float) && !Double.isFinite(number.doubleValue())) {
            out.append("null");
        } else {
            out.append(number);
        }
    }

    private void object(Iterator<? extends Map.Entry<?, ?>> entries, int depth) {
        if (!entries.hasNext()) {
            out.append("{}");
            return;
        }
        out.append('{');
        while (entries.hasNext()) {
            Map.Entry<?, ?> entry = entries.next();
            newline(depth + 1);
            string(String.valueOf(entry.getKey()));
            out.append(": ");
            value(entry.getValue(), depth + 1);
            if (entries.hasNext()) {
                out.append(',');
            }
        }
        newline(depth);
        out.append('}');
    }

    private void array(Iterator<?> items, int depth) {
        if (!items.hasNext()) {
            out.append("[]");
            return;
        }
        out.append('[');
        while (items.hasNext()) {
            newline(depth + 1);
            value(items.next(), depth + 1);
            if (items.hasNext()) {
                out.append(',');
            }
        }
        newline(depth);
        out.append(']');
    }

    private void newline(int depth) {
        out.append('\n');
        out.append("  ".repeat(depth));
    }

    /** Escapes what RFC 8259 section 7 requires, plus U+2028/U+2029 so the text is also safe inside JavaScript. */
    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static final class ArrayIterator implements Iterator<Object> {
        private final Object array;
        private int index;

        ArrayIterator(Object array) {
            this.array = array;
        }

        @Override
        public boolean hasNext() {
            return index < Array.getLength(array);
        }

        @Override
        public Object next() {
            return Array.get(array, index++);
        }
    }

    /** A record's components in declaration order; one that cannot be read (not accessible) shows its error. */
    private static final class RecordIterator implements Iterator<Map.Entry<String, Object>> {
        private final Record record;
        private final RecordComponent[] components;
        private int index;

        RecordIterator(Record record) {
            this.record = record;
            this.components = record.getClass().getRecordComponents();
        }

        @Override
        public boolean hasNext() {
            return index < components.length;
        }

        @Override
        public Map.Entry<String, Object> next() {
            RecordComponent component = components[index++];
            Object value;
            try {
                Method accessor = component.getAccessor();
                accessor.trySetAccessible(); // records of other bundles are often package-private
                value = accessor.invoke(record);
            } catch (ReflectiveOperationException | RuntimeException e) {
                value = "cannot read " + record.getClass().getName() + "." + component.getName() + ": " + e;
            }
            return Map.entry(component.getName(), value == null ? Optional.empty() : value);
        }
    }
}
