// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The wire layouts as data ({@code layouts.txt} beside this class): struct sizes and field offsets, and for each
 * function id its request and response struct. Loaded once; immutable.
 */
public final class LayoutTable {

    public static final String RESOURCE = "layouts.txt";
    private static final LayoutTable STANDARD = load();

    private final Map<String, Layout> structs;
    private final Map<Integer, FuncSpec> funcs;

    private LayoutTable(Map<String, Layout> structs, Map<Integer, FuncSpec> funcs) {
        this.structs = structs;
        this.funcs = funcs;
    }

    public static LayoutTable standard() {
        return STANDARD;
    }

    public static Layout struct(String name) {
        Layout l = STANDARD.structs.get(name);
        if (l == null) {
            throw new IllegalArgumentException("no struct " + name + " in " + RESOURCE);
        }
        return l;
    }

    /** The spec of a function id, or null when the id is not one the protocol defines. */
    public FuncSpec func(int id) {
        return funcs.get(id);
    }

    public Map<String, Layout> structs() {
        return structs;
    }

    public Map<Integer, FuncSpec> funcs() {
        return funcs;
    }

    private static LayoutTable load() {
        try (InputStream in = LayoutTable.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " missing from the bundle");
            }
            return parse(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    static LayoutTable parse(BufferedReader reader) throws IOException {
        Map<String, Layout> structs = new LinkedHashMap<>();
        Map<Integer, FuncSpec> funcs = new LinkedHashMap<>();
        String name = null;
        int size = 0;
        Map<String, Layout.Field> fields = null;
        String line;
        int n = 0;
        while ((line = reader.readLine()) != null) {
            n++;
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            String[] w = t.split("\\s+");
            if (!line.startsWith(" ") && name != null) {
                structs.put(name, new Layout(name, size, fields));
                name = null;
            }
            String kind = line.startsWith(" ") ? "field" : w[0];
            switch (kind) {
                case "struct" -> {
                    name = w[1];
                    size = Integer.parseInt(w[2]);
                    fields = new LinkedHashMap<>();
                }
                case "func" -> {
                    int id = Integer.parseInt(w[1]);
                    boolean var = w[3].equals("var");
                    Layout req = var || w[3].equals("none") ? null : need(structs, w[3], n);
                    Layout rsp = w[4].equals("none") ? null : need(structs, w[4], n);
                    String ret = w.length > 5 && w[5].startsWith("ret=") ? w[5].substring(4) : null;
                    if (ret != null && rsp != null) {
                        rsp.off(ret);
                    }
                    funcs.put(id, new FuncSpec(id, w[2], req, var, rsp, ret));
                }
                case "field" -> {
                    if (name == null || w.length != 3) {
                        throw new IllegalStateException(RESOURCE + ":" + n + ": cannot parse '" + t + "'");
                    }
                    int off = Integer.parseInt(w[2]);
                    int width = width(w[1]);
                    if (off + width > size) {
                        throw new IllegalStateException(RESOURCE + ":" + n + ": " + w[0] + " beyond struct " + name);
                    }
                    fields.put(w[0], new Layout.Field(w[0], w[1], off, width));
                }
                default -> throw new IllegalStateException(RESOURCE + ":" + n + ": cannot parse '" + t + "'");
            }
        }
        if (name != null) {
            structs.put(name, new Layout(name, size, fields));
        }
        return new LayoutTable(Map.copyOf(structs), Map.copyOf(new HashMap<>(funcs)));
    }

    private static Layout need(Map<String, Layout> structs, String name, int line) {
        Layout l = structs.get(name);
        if (l == null) {
            throw new IllegalStateException(RESOURCE + ":" + line + ": unknown struct " + name);
        }
        return l;
    }

    static int width(String type) {
        return switch (type) {
            case "i8", "u8" -> 1;
            case "u16" -> 2;
            case "i32", "u32" -> 4;
            case "u64" -> 8;
            default -> {
                if (type.startsWith("char[") && type.endsWith("]")) {
                    yield Integer.parseInt(type.substring(5, type.length() - 1));
                }
                throw new IllegalStateException("unknown field type " + type);
            }
        };
    }
}
