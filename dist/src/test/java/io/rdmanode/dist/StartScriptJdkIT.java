// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The start script reads the JDK it runs from its {@code release} file (found through JAVA_HOME, else through the
 * {@code java} on PATH and its links) with shell builtins alone: the version picks the class-data archive's kind and
 * name and the flags that exist on that JDK, and a packaged archive serves only the directory it was made in. Fake
 * JDKs in a temporary directory: {@code --print-jvm-flags} starts no JVM (RDMA_AGENT_CDS_DIR set: no state
 * directory lookup either).
 */
class StartScriptJdkIT {

    @TempDir
    Path dir;

    @Test
    void theReleaseFilesVersionPicksTheArchiveAndTheFlagsThatJdkHas() throws Exception {
        assertThat(flagsFor("17.0.8")).contains("-Drdma.agent.cds.file=agent-17.0.8.jsa")
                .doesNotContain("TrimNativeHeapInterval", "--enable-native-access");
        assertThat(flagsFor("17.0.9")).contains("-XX:TrimNativeHeapInterval=1000");
        assertThat(flagsFor("21")).doesNotContain("TrimNativeHeapInterval");
        assertThat(flagsFor("21.0.1")).contains("-XX:TrimNativeHeapInterval=1000");
        assertThat(flagsFor("25.0.1")).contains("-Drdma.agent.cds.file=agent-25.0.1.aot",
                "-XX:TrimNativeHeapInterval=1000", "--enable-native-access=ALL-UNNAMED");
    }

    @Test
    void theJavaOnPathIsFollowedThroughItsLinksToItsJdk() throws Exception {
        Path jdk = fakeJdk("jdk", "JAVA_VERSION=\"25.0.2\"");        // no newline at the end of the file
        Path alternatives = Files.createDirectories(dir.resolve("alternatives"));
        Files.createSymbolicLink(alternatives.resolve("java"), jdk.resolve("bin/java"));
        Path bin = Files.createDirectories(dir.resolve("usr-bin"));
        Files.createSymbolicLink(bin.resolve("java"), alternatives.resolve("java"));

        String flags = flags(Map.of("PATH", bin + ":/usr/bin:/bin"), AgentProcessIT.DIST);

        assertThat(flags).contains("-Drdma.agent.cds.file=agent-25.0.2.aot", "--enable-native-access=ALL-UNNAMED");
    }

    @Test
    void aPackagedArchiveServesOnlyTheDirectoryItWasMadeIn() throws Exception {
        Path jdk = fakeJdk("jdk", "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"17.0.9\"\n");
        Path dist = Files.createDirectories(dir.resolve("dist"));
        Files.createDirectories(dist.resolve("bin"));
        Files.copy(AgentProcessIT.DIST.resolve("bin/rdma-node-agent"), dist.resolve("bin/rdma-node-agent"),
                StandardCopyOption.COPY_ATTRIBUTES);
        Path cds = Files.createDirectories(dist.resolve("lib/cds"));
        Files.writeString(cds.resolve("agent-17.0.9.jsa"), "");
        Map<String, String> env = Map.of("JAVA_HOME", jdk.toString());

        String noHomeFile = flags(env, dist);
        Files.writeString(cds.resolve("agent-17.0.9.jsa.home"), "/elsewhere\n");
        String madeElsewhere = flags(env, dist);
        Files.writeString(cds.resolve("agent-17.0.9.jsa.home"), dist.toRealPath().toString());
        String madeHere = flags(env, dist);

        String packaged = "-XX:SharedArchiveFile=" + dist.toRealPath().resolve("lib/cds/agent-17.0.9.jsa");
        assertThat(noHomeFile).contains(packaged, "-Drdma.agent.cds.inUse=packaged:" + dist.toRealPath());
        assertThat(madeElsewhere).doesNotContain("SharedArchiveFile").contains("-Drdma.agent.cds.inUse=none");
        assertThat(madeHere).contains(packaged);
    }

    private String flagsFor(String version) throws Exception {
        Path jdk = fakeJdk("jdk-" + version, "JAVA_VERSION=\"" + version + "\"\n");
        return flags(Map.of("JAVA_HOME", jdk.toString()), AgentProcessIT.DIST);
    }

    /** A JDK directory with its release file and a bin/java the script never runs here. */
    private Path fakeJdk(String name, String release) throws Exception {
        Path jdk = Files.createDirectories(dir.resolve(name));
        Files.createDirectories(jdk.resolve("bin"));
        Files.writeString(jdk.resolve("bin/java"), "#!/bin/sh\nexit 99\n");
        jdk.resolve("bin/java").toFile().setExecutable(true);
        Files.writeString(jdk.resolve("release"), release);
        return jdk;
    }

    private String flags(Map<String, String> env, Path dist) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(List.of(dist.resolve("bin/rdma-node-agent").toString(),
                "--print-jvm-flags")).redirectErrorStream(true);
        builder.environment().remove("JAVA_HOME");
        builder.environment().remove("JAVA_OPTS");
        builder.environment().put("RDMA_AGENT_CDS_DIR", dir.resolve("cds").toString());
        builder.environment().putAll(env);
        Process p = builder.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }
}
