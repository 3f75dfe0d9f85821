// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every offset and size in {@link NativeLayout} against gcc and the installed {@code <infiniband/verbs.h>} (Debian
 * libibverbs-dev): {@code src/test/resources/verbs/native_layout.c} prints the C side, one line per constant, and
 * a constant without its line fails. Skips without the header or gcc.
 */
class NativeLayoutTest {

    @Test
    void every_constant_is_what_gcc_computes_from_verbs_h(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(Path.of("/usr/include/infiniband/verbs.h")),
                "no /usr/include/infiniband/verbs.h: apt-get install libibverbs-dev to check the layouts");
        Path source = dir.resolve("native_layout.c");
        try (var in = NativeLayoutTest.class.getResourceAsStream("/verbs/native_layout.c")) {
            Files.copy(in, source);
        }
        Path exe = dir.resolve("native_layout");
        try {
            run(dir, "gcc", "-Wall", "-Werror", "-o", exe.toString(), source.toString());
        } catch (IOException e) {
            Assumptions.assumeTrue(false, "gcc could not build the layout program: " + e.getMessage());
        }
        Map<String, Long> c = new TreeMap<>();
        for (String line : run(dir, exe.toString()).split("\n")) {
            c.put(line.substring(0, line.indexOf('=')), Long.parseLong(line.substring(line.indexOf('=') + 1)));
        }
        Map<String, Long> java = new TreeMap<>();
        for (Field f : NativeLayout.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                java.put(f.getName(), (long) f.getInt(null));
            }
        }
        Map<String, Long> expected = new TreeMap<>(c);
        expected.remove("PORT_ATTR_FITS");
        expected.remove("RECV_WR_ID");
        expected.remove("RECV_WR_NEXT");
        expected.remove("RECV_WR_SG_LIST");
        expected.remove("RECV_WR_NUM_SGE");
        expected.put("PORT_ATTR_SIZE", c.get("PORT_ATTR_FITS"));
        assertThat(java).isEqualTo(expected);
        assertThat(c).as("ibv_recv_wr's first members where ibv_send_wr's are")
                .containsEntry("RECV_WR_ID", c.get("WR_ID")).containsEntry("RECV_WR_NEXT", c.get("WR_NEXT"))
                .containsEntry("RECV_WR_SG_LIST", c.get("WR_SG_LIST")).containsEntry("RECV_WR_NUM_SGE", c.get("WR_NUM_SGE"));
    }

    private static String run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ": " + out);
        }
        return out;
    }
}
