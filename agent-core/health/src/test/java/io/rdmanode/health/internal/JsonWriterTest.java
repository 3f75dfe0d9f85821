// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.google.gson.JsonParser;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class JsonWriterTest {

    /** Input, expected JSON literal, description. */
    static Stream<Arguments> escapes() {
        return Stream.of(
                arguments("plain", "\"plain\"", "plain text"),
                arguments("", "\"\"", "empty"),
                arguments("say \"hi\"", "\"say \\\"hi\\\"\"", "double quote"),
                arguments("C:\\dir", "\"C:\\\\dir\"", "backslash"),
                arguments("a\nb", "\"a\\nb\"", "newline"),
                arguments("a\rb", "\"a\\rb\"", "carriage return"),
                arguments("a\tb", "\"a\\tb\"", "tab"),
                arguments("a\bb", "\"a\\bb\"", "backspace"),
                arguments("a\fb", "\"a\\fb\"", "form feed"),
                arguments("\0", "\"\\u0000\"", "NUL"),
                arguments("\u0001\u001f", "\"\\u0001\\u001f\"", "other control characters"),
                arguments("\u001b[31m", "\"\\u001b[31m\"", "terminal escape"),
                arguments("\u007f", "\"\u007f\"", "DEL is no control character in JSON"),
                arguments("a/b", "\"a/b\"", "slash stays"),
                arguments("\u00b5s \u00fc \u65e5\u672c", "\"\u00b5s \u00fc \u65e5\u672c\"", "non-ASCII stays"),
                arguments("\ud83d\ude00", "\"\ud83d\ude00\"", "surrogate pair stays"),
                arguments("\u2028\u2029", "\"\\u2028\\u2029\"", "JavaScript line separators"));
    }

    @ParameterizedTest(name = "{2}")
    @MethodSource("escapes")
    void escapesStrings(String input, String expected, String description) {
        assertThat(JsonWriter.write(input)).isEqualTo(expected + "\n");
        assertThat(JsonParser.parseString(JsonWriter.write(input)).getAsString()).isEqualTo(input);
    }

    @Test
    void writesNestedStructuresWithTwoSpaceIndentation() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("ok", true);
        inner.put("missing", null);
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("name", "mlx5_0");
        document.put("ports", List.of(1, 2));
        document.put("state", inner);
        document.put("empty", Map.of());
        document.put("none", List.of());

        assertThat(JsonWriter.write(document)).isEqualTo("""
                {
                  "name": "mlx5_0",
                  "ports": [
                    1,
                    2
                  ],
                  "state": {
                    "ok": true,
                    "missing": null
                  },
                  "empty": {},
                  "none": []
                }
                """);
    }

    @Test
    void writesNumbersAsJsonNumbersAndNonFiniteOnesAsNull() {
        assertThat(JsonWriter.write(List.of(42, -7L, 1.5, 2.5f, new BigDecimal("1e400"), Double.NaN,
                Double.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY)))
                .isEqualTo("[\n  42,\n  -7,\n  1.5,\n  2.5,\n  1E+400,\n  null,\n  null,\n  null\n]\n");
    }

    @Test
    void writesArraysOptionalsEnumsAndRecords() {
        record Port(int number, String state, Optional<String> gid) {
        }
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("ints", new int[] {1, 2});
        document.put("strings", new String[] {"a"});
        document.put("present", Optional.of("x"));
        document.put("absent", Optional.empty());
        document.put("unit", TimeUnit.SECONDS);
        document.put("port", new Port(1, "ACTIVE", Optional.empty()));

        String json = JsonWriter.write(document);

        var parsed = JsonParser.parseString(json).getAsJsonObject();
        assertThat(parsed.get("ints").toString()).isEqualTo("[1,2]");
        assertThat(parsed.get("strings").toString()).isEqualTo("[\"a\"]");
        assertThat(parsed.get("present").getAsString()).isEqualTo("x");
        assertThat(parsed.get("absent").isJsonNull()).isTrue();
        assertThat(parsed.get("unit").getAsString()).isEqualTo("SECONDS");
        assertThat(parsed.get("port").toString()).isEqualTo("{\"number\":1,\"state\":\"ACTIVE\",\"gid\":null}");
    }

    @Test
    void writesMapKeysAsStrings() {
        Map<Object, Object> map = new HashMap<>();
        map.put(7, "seven");
        assertThat(JsonWriter.write(map)).isEqualTo("{\n  \"7\": \"seven\"\n}\n");
    }

    @Test
    void refusesSelfContainingTreesInsteadOfOverflowingTheStack() {
        Map<String, Object> loop = new HashMap<>();
        loop.put("self", loop);
        assertThatThrownBy(() -> JsonWriter.write(loop))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot write JSON: nesting deeper than 64 levels");
    }
}
