// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Writes a tree of maps, collections, arrays, strings, numbers, booleans and nulls as pretty-printed JSON
 * (RFC 8259, two-space indentation) with jackson-core's streaming generator, the agent's one JSON library.
 * Enums and unknown objects become their {@code toString()}, records their components, an empty
 * {@link Optional} {@code null}; NaN and infinities, which JSON cannot express, become {@code null}. Walking the
 * tree stays here (no databind): status sections are plain maps and records of other bundles.
 */
final class JsonWriter {

    /** Deep enough for any status tree; stops a self-containing map from overflowing the stack. */
    private static final int MAX_DEPTH = 64;
    private static final JsonFactory FACTORY = new JsonFactory().setCharacterEscapes(new Escapes());
    private static final DefaultPrettyPrinter PRETTY = prettyPrinter();

    private final JsonGenerator out;

    private JsonWriter(JsonGenerator out) {
        this.out = out;
    }

    static String write(Object value) {
        StringWriter text = new StringWriter(256);
        try (JsonGenerator generator = FACTORY.createGenerator(text)) {
            generator.setPrettyPrinter(PRETTY.createInstance());
            new JsonWriter(generator).value(value, 0);
        } catch (IOException e) {
            throw new UncheckedIOException("a StringWriter does not fail", e);
        }
        return text.append('\n').toString();
    }

    /** {@code "key": value}, entries and items on their own lines, {@code {}} and {@code []} when empty. */
    private static DefaultPrettyPrinter prettyPrinter() {
        DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
        DefaultPrettyPrinter printer = new DefaultPrettyPrinter().withSeparators(Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("").withArrayEmptySeparator(""));
        printer.indentObjectsWith(indenter);
        printer.indentArraysWith(indenter);
        return printer;
    }

    private void value(Object value, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("cannot write JSON: nesting deeper than " + MAX_DEPTH + " levels");
        }
        if (value instanceof Optional<?> optional) {
            value = optional.orElse(null);
        }
        if (value == null) {
            out.writeNull();
        } else if (value instanceof Boolean bool) {
            out.writeBoolean(bool);
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
            out.writeString(value.toString());
        }
    }

    private void number(Number number) throws IOException {
        if (number instanceof Double || number instanceof Float) {
            if (!Double.isFinite(number.doubleValue())) {
                out.writeNull();
            } else if (number instanceof Float f) {
                out.writeNumber(f);
            } else {
                out.writeNumber(number.doubleValue());
            }
        } else if (number instanceof Integer || number instanceof Long || number instanceof Short
                || number instanceof Byte) {
            out.writeNumber(number.longValue());
        } else if (number instanceof BigDecimal decimal) {
            out.writeNumber(decimal);
        } else if (number instanceof BigInteger integer) {
            out.writeNumber(integer);
        } else {
            out.writeNumber(number.toString()); // AtomicLong, LongAdder: their text is the number
        }
    }

    private void object(Iterator<? extends Map.Entry<?, ?>> entries, int depth) throws IOException {
        out.writeStartObject();
        while (entries.hasNext()) {
            Map.Entry<?, ?> entry = entries.next();
            out.writeFieldName(String.valueOf(entry.getKey()));
            value(entry.getValue(), depth + 1);
        }
        out.writeEndObject();
    }

    private void array(Iterator<?> items, int depth) throws IOException {
        out.writeStartArray();
        while (items.hasNext()) {
            value(items.next(), depth + 1);
        }
        out.writeEndArray();
    }

    /**
     * RFC 8259 section 7 escapes (short forms for backspace, tab, newline, form feed and carriage return, a
     * six-character escape with lower-case hex digits for the other control characters), plus U+2028/U+2029 so
     * the text is also safe inside JavaScript.
     */
    private static final class Escapes extends CharacterEscapes {
        private static final long serialVersionUID = 1L;
        private final int[] ascii = standardAsciiEscapesForJSON();

        Escapes() {
            for (int c = 0; c < 0x20; c++) {
                if (ascii[c] == ESCAPE_STANDARD) {
                    ascii[c] = ESCAPE_CUSTOM;
                }
            }
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int c) {
            return c < 0x20 || c == 0x2028 || c == 0x2029 ? new SerializedString(String.format("\\u%04x", c)) : null;
        }
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
