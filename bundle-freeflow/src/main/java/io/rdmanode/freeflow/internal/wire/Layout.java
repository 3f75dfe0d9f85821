// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.util.Collections;
import java.util.Map;

/** One C struct of the wire protocol: its size and named fields, as read from {@code layouts.txt}. */
public record Layout(String name, int size, Map<String, Field> fields) {

    /** A field: type ({@code i32}, {@code u64}, {@code char[100]} ...), offset and width in bytes. */
    public record Field(String name, String type, int offset, int width) {
    }

    public Layout {
        fields = Collections.unmodifiableMap(fields);
    }

    /** Offset of a field; an unknown name is a programming error, found by the layout tests. */
    public int off(String field) {
        Field f = fields.get(field);
        if (f == null) {
            throw new IllegalArgumentException("struct " + name + " has no field " + field);
        }
        return f.offset();
    }

    public Field field(String field) {
        off(field);
        return fields.get(field);
    }
}
