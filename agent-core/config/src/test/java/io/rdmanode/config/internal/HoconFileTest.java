// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.agent.Hocon;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HoconFileTest {

    static final Path FILE = Path.of("/etc/rdma-node-agent/agent.conf");

    static HoconFile.Parsed parse(String text) {
        return HoconFile.parse(FILE, text.getBytes(StandardCharsets.UTF_8), Map.of("rdma.agent.stateDir", "/run/x"));
    }

    @Test
    void syntaxErrorNamesFileAndLine() {
        HoconFile.Parsed parsed = parse("probe {\n  greeting = hello\n  size = \n");
        assertThat(parsed.ok()).isFalse();
        assertThat(parsed.problems()).hasSize(1);
        assertThat(parsed.problems().get(0).toString()).startsWith(FILE + ":4: ");
    }

    @Test
    void aSignedUnicodeEscapeIsASyntaxProblemWithItsLine() {
        // typesafe-config threw IllegalArgumentException for this (HoconMappingFuzzTest's finding,
        // HoconMappingFuzzTestInputs/mapsOrRefuses/negative-unicode-escape); an escaped backslash before u is text.
        HoconFile.Parsed parsed = parse("probe {\n  path = \"c:\\\\u-not-an-escape\"\n  tags = [\"\\u-01b[31m\"]\n}\n");
        assertThat(parsed.ok()).isFalse();
        assertThat(parsed.problems()).hasSize(1);
        assertThat(parsed.problems().get(0).toString()).startsWith(FILE + ":3: ")
                .contains("must be followed by four hex digits");
        assertThat(parse("probe { tags = [\"\\u00e9\\u001b\"] }").ok()).isTrue();
    }

    @Test
    void substitutionsResolveAgainstFrameworkPropertiesAndTheEnvironment() {
        HoconFile.Parsed parsed = parse("agent.runtime.stateDir = ${rdma.agent.stateDir}\n"
                + "x = ${?RDMA_AGENT_SURELY_UNSET_VARIABLE}\n");
        assertThat(parsed.ok()).isTrue();
        assertThat(parsed.config().getString("agent.runtime.stateDir")).isEqualTo("/run/x");
        assertThat(parsed.config().hasPath("x")).isFalse();
    }

    @Test
    void optionalOverrideOfADefaultResolvesAndTheEnvironmentDoesNotLeakIn() {
        HoconFile.Parsed parsed = parse("agent.http { port = 9456\n port = ${?RDMA_AGENT_SURELY_UNSET_VARIABLE} }\n"
                + "home = ${?HOME}\n");
        assertThat(parsed.problems()).isEmpty();
        assertThat(parsed.config().getInt("agent.http.port")).isEqualTo(9456);
        assertThat(parsed.config().root().keySet()).containsExactlyInAnyOrder("agent", "home");
    }

    @Test
    void unresolvableSubstitutionIsAProblemWithItsLine() {
        HoconFile.Parsed parsed = parse("a = 1\nb = ${nowhere.to.be.found}\n");
        assertThat(parsed.problems()).singleElement().asString().startsWith(FILE + ":2: ")
                .contains("nowhere.to.be.found");
    }

    @Test
    void anEmptyFileIsAProblemNotAnEmptyConfig() {
        assertThat(parse("").problems()).singleElement().asString().isEqualTo(FILE + ": the file is empty (a save"
                + " in progress? write the new file beside it and rename it over)");
        assertThat(parse("\n").ok()).isTrue();
    }

    @Test
    void readRefusesAFileThatIsOverTheLimit(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("agent.conf");
        Files.writeString(file, "#".repeat(Hocon.MAX_FILE_BYTES));
        assertThat(HoconFile.read(file)).hasSize(Hocon.MAX_FILE_BYTES);

        Files.writeString(file, "#", StandardOpenOption.APPEND);
        assertThatThrownBy(() -> HoconFile.read(file)).isInstanceOf(HoconFile.TooLargeException.class)
                .hasMessage("the file is 1048577 bytes, over the limit of 1048576 bytes (1 MiB) for a configuration"
                        + " file");
    }

    /** Live reload and check-config parse from the bytes read: a relative include used to be dropped silently. */
    @Test
    void aRelativeIncludeIsReadFromTheConfigurationFilesDirectory(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("inc.conf"), "metrics.path = \"/incl-metrics\"\n");
        Path main = dir.resolve("agent.conf");
        HoconFile.Parsed parsed = HoconFile.parse(main, "a = 1\ninclude \"inc.conf\"\n"
                .getBytes(StandardCharsets.UTF_8), Map.of());
        assertThat(parsed.ok()).isTrue();
        assertThat(parsed.config().getString("metrics.path")).isEqualTo("/incl-metrics");
        HoconFile.Parsed missing = HoconFile.parse(main, "include required(\"nope.conf\")\n"
                .getBytes(StandardCharsets.UTF_8), Map.of());
        assertThat(missing.problems()).singleElement().asString().contains("nope.conf");
        Files.write(dir.resolve("huge.conf"), new byte[io.rdmanode.agent.Hocon.MAX_FILE_BYTES + 1]);
        assertThat(HoconFile.parse(main, "include \"huge.conf\"\n".getBytes(StandardCharsets.UTF_8), Map.of())
                .problems()).singleElement().asString().contains("over the limit of");
    }

    /**
     * A file that includes itself, directly or through another, is a refusal naming the cycle. It was followed until
     * the heap ran out: a live edit ended the agent (OutOfMemoryError) and check-config died with exit 3.
     */
    @Test
    void anIncludeCycleIsARefusalNamingIt(@TempDir Path dir) throws Exception {
        Path main = dir.resolve("agent.conf");
        byte[] self = "a = 1\ninclude \"agent.conf\"\n".getBytes(StandardCharsets.UTF_8);
        Files.write(main, self);
        assertThat(HoconFile.parse(main, self, Map.of()).problems()).singleElement().asString()
                .contains("include cycle: " + main.toRealPath() + " -> " + main);

        Files.writeString(dir.resolve("b.conf"), "include \"c.conf\"\n");
        Files.writeString(dir.resolve("c.conf"), "include \"b.conf\"\n");
        assertThat(HoconFile.parse(main, "include \"b.conf\"\n".getBytes(StandardCharsets.UTF_8), Map.of())
                .problems()).singleElement().asString().contains("include cycle:", "c.conf -> " + dir.resolve("b.conf"));

        for (int i = 0; i < 20; i++) {
            Files.writeString(dir.resolve("d" + i + ".conf"), "d" + i + " = 1\ninclude \"d" + (i + 1) + ".conf\"\n");
        }
        assertThat(HoconFile.parse(main, "include \"d0.conf\"\n".getBytes(StandardCharsets.UTF_8), Map.of())
                .problems()).singleElement().asString().contains("includes nested more than 16 files deep");
    }

    /**
     * The parse has a stack of its own, so the reload thread's -Xss256k and check-config's thread agree: 80 lines of
     * pools += {...} and 60 nested objects parse; deeper than 64 is a refusal naming the depth, not a crash.
     */
    @Test
    void nestingIsJudgedTheSameOnAnyThreadAndTooDeepIsARefusal() throws Exception {
        StringBuilder appends = new StringBuilder();
        for (int i = 0; i < 80; i++) {
            appends.append("deviceplugin.shared.pools += { name = p").append(i).append(", rdmaHcaMax = 10 }\n");
        }
        StringBuilder deep = new StringBuilder();
        for (int i = 0; i < 60; i++) {
            deep.append("a").append(i).append(" { ");
        }
        deep.append("x = 1").append(" }".repeat(60)).append('\n');
        java.util.List<HoconFile.Parsed> onSmallStack = new java.util.ArrayList<>();
        Thread small = new Thread(null, () -> {
            onSmallStack.add(parse(appends.toString()));
            onSmallStack.add(parse(deep.toString()));
        }, "small-stack", 256 << 10);
        small.start();
        small.join();
        assertThat(onSmallStack).hasSize(2).allMatch(HoconFile.Parsed::ok);
        assertThat(onSmallStack.get(0).config().getList("deviceplugin.shared.pools")).hasSize(80);
        assertThat(parse("a = " + "[".repeat(150) + "]".repeat(150) + "\n").problems()).singleElement().asString()
                .contains("nested 151 levels deep; at most 64");
        String absurd = "a = " + "[".repeat(200_000) + "]".repeat(200_000) + "\n";
        assertThat(parse(absurd).problems()).singleElement().asString().contains("nested too deeply");
    }

    @Test
    void checksumIdentifiesContent() {
        assertThat(parse("a = 1").checksum()).isEqualTo(parse("a = 1").checksum()).isNotEqualTo(parse("a = 2")
                .checksum()).hasSize(16);
    }
}
