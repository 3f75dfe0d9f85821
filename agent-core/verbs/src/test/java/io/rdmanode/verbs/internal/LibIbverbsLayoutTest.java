// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The jnr Struct layouts in {@link LibIbverbs} against gcc and the installed {@code <infiniband/verbs.h>}
 * (Debian libibverbs-dev): every member's offset and every struct's size, with no member missing on either
 * side, and the {@code enum ibv_event_type} values. {@code src/test/resources/verbs/ibv_layout.c} prints the C side. jnr computes the layout on the build
 * machine's architecture; with a cross compiler present, the aarch64 layout is checked to be the same.
 */
class LibIbverbsLayoutTest {

    private static final Map<Class<? extends Struct>, String> C_NAMES = Map.of(
            LibIbverbs.DeviceAttr.class, "ibv_device_attr",
            LibIbverbs.PortAttr.class, "ibv_port_attr",
            LibIbverbs.GidEntry.class, "ibv_gid_entry",
            LibIbverbs.AsyncEventStruct.class, "ibv_async_event",
            LibIbverbs.ContextHead.class, "ibv_context");

    private static final Pattern ASM_CONSTANT =
            Pattern.compile("^layout_(\\w+):\\s*\\n\\s*\\.(xword|quad|8byte|zero)\\s+(\\d+)", Pattern.MULTILINE);

    private static Map<String, Long> gcc;
    private static Path source;

    @BeforeAll
    static void compileAndRunTheCProgram(@TempDir Path dir) throws IOException, InterruptedException {
        Assumptions.assumeTrue(Files.isRegularFile(Path.of("/usr/include/infiniband/verbs.h")),
                "no /usr/include/infiniband/verbs.h: apt-get install libibverbs-dev to check the struct layouts");
        source = dir.resolve("ibv_layout.c");
        try (var in = LibIbverbsLayoutTest.class.getResourceAsStream("/verbs/ibv_layout.c")) {
            Files.copy(in, source);
        }
        Path exe = dir.resolve("ibv_layout");
        String compiled = run(dir, "gcc", "-Wall", "-Werror", "-o", exe.toString(), source.toString());
        gcc = new LinkedHashMap<>();
        for (String line : run(dir, exe.toString()).split("\n")) {
            int eq = line.lastIndexOf('=');
            gcc.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)));
        }
        assertThat(gcc).as("gcc said: %s", compiled).containsKey("ibv_port_attr");
    }

    @ParameterizedTest
    @ValueSource(classes = {LibIbverbs.DeviceAttr.class, LibIbverbs.PortAttr.class, LibIbverbs.GidEntry.class,
                            LibIbverbs.AsyncEventStruct.class, LibIbverbs.ContextHead.class})
    void structMatchesTheCHeader(Class<? extends Struct> type) throws ReflectiveOperationException {
        String c = C_NAMES.get(type);
        Struct struct = type.getConstructor(Runtime.class).newInstance(Runtime.getSystemRuntime());
        Map<String, Long> java = new TreeMap<>();
        for (Field f : type.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                Object member = f.get(struct);
                Object first = member.getClass().isArray() ? ((Object[]) member)[0] : member;
                java.put(c + "." + snake(f.getName()), (Long) first.getClass().getMethod("offset").invoke(first));
            }
        }
        Map<String, Long> expected = new TreeMap<>();
        gcc.forEach((k, v) -> {
            if (k.startsWith(c + ".")) {
                expected.put(k, v);
            }
        });

        assertThat(java).isEqualTo(expected);
        if (gcc.containsKey(c)) {                   // ibv_context: allocated by libibverbs, only read here
            assertThat((long) DeviceQueries.sizeOf(struct)).as("sizeof(struct %s)", c).isEqualTo(gcc.get(c));
        }
    }

    @Test
    void asyncEventTypesHaveTheCValues() {
        gcc.forEach((k, v) -> {
            if (k.startsWith("enum.IBV_EVENT_")) {
                io.rdmanode.verbs.AsyncEventType type =
                        io.rdmanode.verbs.AsyncEventType.valueOf(k.substring("enum.IBV_EVENT_".length()));
                assertThat((long) type.code()).as(k).isEqualTo(v);
            }
        });
        assertThat(gcc.keySet()).anyMatch(k -> k.startsWith("enum.IBV_EVENT_"));
    }

    @Test
    void aarch64HasTheSameLayout(@TempDir Path dir) throws IOException, InterruptedException {
        Assumptions.assumeTrue(onPath("aarch64-linux-gnu-gcc"),
                "no aarch64-linux-gnu-gcc: apt-get install gcc-aarch64-linux-gnu to check the aarch64 layout");
        String asm = run(dir, "aarch64-linux-gnu-gcc", "-Wall", "-Werror", "-S", "-DLAYOUT_AS_DATA",
                "-idirafter", "/usr/include", "-o", "-", source.toString());
        Map<String, Long> aarch64 = new LinkedHashMap<>();
        Matcher m = ASM_CONSTANT.matcher(asm);
        while (m.find()) {
            long value = m.group(2).equals("zero") ? 0 : Long.parseLong(m.group(3));
            aarch64.put(m.group(1).replace("__", "."), value);
        }

        assertThat(aarch64).isEqualTo(gcc);
    }

    private static boolean onPath(String program) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(d -> Files.isExecutable(Path.of(d, program)));
    }

    private static String snake(String camel) {
        return camel.replaceAll("([A-Z])", "_$1").toLowerCase(java.util.Locale.ROOT);
    }

    private static String run(Path dir, String... command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            Assumptions.abort("cannot run " + command[0] + " (install gcc to check the struct layouts): " + e);
            throw e;
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("%s: %s", String.join(" ", command), out).isZero();
        return out;
    }
}
