// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21: the start script sizes heap and direct memory to the memory limit it runs under (the variable the
 * DaemonSet and the unit set, else the cgroup's), as {@code --print-jvm-flags} shows without starting anything.
 * The cgroup files are fakes under {@code RDMA_AGENT_CGROUP_ROOT}, laid out as a container sees them.
 */
class StartScriptMemoryIT {

    private static final String SCRIPT = AgentProcessIT.DIST.resolve("bin/rdma-node-agent").toString();

    @TempDir
    Path cgroup;

    @Test
    void theDaemonSetsLimitGivesTodaysHeapAndAThirdOfTheRestAsDirectMemory() throws Exception {
        String flags = flags(Map.of("RDMA_AGENT_MEMORY_LIMIT", "160Mi"));

        assertThat(flags).contains("-Xmx64m", "-XX:MaxDirectMemorySize=32m", "-Dio.netty.maxDirectMemory=33554432",
                "-XX:+ExitOnOutOfMemoryError", "-Drdma.agent.memory.limit=167772160:RDMA_AGENT_MEMORY_LIMIT");
    }

    @Test
    void cgroupV2MemoryMaxSizesTheJvm() throws Exception {
        Files.writeString(cgroup.resolve("memory.max"), "268435456\n");

        assertThat(flags(Map.of())).contains("-Xmx128m", "-XX:MaxDirectMemorySize=64m",
                "-Dio.netty.maxDirectMemory=67108864", "-Drdma.agent.memory.limit=268435456:cgroup");
    }

    @Test
    void cgroupV1LimitSizesTheJvmAndItsNoLimitValueGivesTheDefault() throws Exception {
        Path v1 = Files.createDirectories(cgroup.resolve("memory"));
        Files.writeString(v1.resolve("memory.limit_in_bytes"), "134217728\n");
        String limited = flags(Map.of());
        Files.writeString(v1.resolve("memory.limit_in_bytes"), "9223372036854771712\n");
        String unlimited = flags(Map.of());

        assertThat(limited).contains("-Xmx42m", "-XX:MaxDirectMemorySize=21m");
        assertThat(unlimited).contains("-Xmx64m", "-XX:MaxDirectMemorySize=32m", "-Drdma.agent.memory.limit=none");
    }

    @Test
    void withoutAnyLimitTheHeapStaysAtSixtyFourMib() throws Exception {
        Files.writeString(cgroup.resolve("memory.max"), "max\n");

        assertThat(flags(Map.of())).contains("-Xmx64m", "-XX:MaxDirectMemorySize=32m");
    }

    @Test
    void theVariableBeatsTheCgroupAndJavaOptsBeatsBoth() throws Exception {
        Files.writeString(cgroup.resolve("memory.max"), "268435456\n");

        String fromVariable = flags(Map.of("RDMA_AGENT_MEMORY_LIMIT", "1Gi"));
        String withJavaOpts = flags(Map.of("RDMA_AGENT_MEMORY_LIMIT", "1Gi", "JAVA_OPTS", "-Xmx99m"));

        assertThat(fromVariable).contains("-Xmx512m", "-XX:MaxDirectMemorySize=256m");
        assertThat(withJavaOpts.lastIndexOf("-Xmx99m")).isGreaterThan(withJavaOpts.lastIndexOf("-Xmx512m"));
    }

    /**
     * The heap starts at 24 MiB; a heap size of the operator's (below it, say) takes the initial and minimum sizes
     * with it: a maximum below the script's 8 MiB minimum stopped the JVM before it started.
     */
    @Test
    void theHeapStartsAt24MibUnlessJavaOptsSizesTheHeap() throws Exception {
        assertThat(flags(Map.of())).contains("-XX:MinHeapSize=8m -XX:InitialHeapSize=24m");
        assertThat(flags(Map.of("JAVA_OPTS", "-Xmx16m"))).doesNotContain("InitialHeapSize", "MinHeapSize")
                .contains("-Xmx16m");

        ProcessBuilder version = new ProcessBuilder(List.of(SCRIPT, "--version")).redirectErrorStream(true);
        version.environment().put("JAVA_OPTS", "-Xmx6m");
        Process p = version.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
    }

    @Test
    void aLimitTooSmallIsSaidAndAMalformedOneRefused() throws Exception {
        Run small = run(Map.of("RDMA_AGENT_MEMORY_LIMIT", "64Mi"));
        Run malformed = run(Map.of("RDMA_AGENT_MEMORY_LIMIT", "lots"));

        assertThat(small.exit()).isZero();
        assertThat(small.output()).contains("memory limit of 64 MiB (RDMA_AGENT_MEMORY_LIMIT) leaves too little",
                "-Xmx24m", "-XX:MaxDirectMemorySize=8m");
        assertThat(malformed.exit()).isEqualTo(2);
        assertThat(malformed.output()).contains("memory limit 'lots' is not bytes or a K/M/G/Ki/Mi/Gi quantity");
    }

    private String flags(Map<String, String> env) throws Exception {
        Run run = run(env);
        assertThat(run.exit()).as(run.output()).isZero();
        return run.output();
    }

    private Run run(Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(List.of(SCRIPT, "--print-jvm-flags")).redirectErrorStream(true);
        Map<String, String> all = new HashMap<>(env);
        all.put("RDMA_AGENT_CGROUP_ROOT", cgroup.toString());
        builder.environment().remove("RDMA_AGENT_MEMORY_LIMIT");
        builder.environment().remove("JAVA_OPTS");
        builder.environment().putAll(all);
        Process p = builder.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Run(p.waitFor(), out);
    }

    private record Run(int exit, String output) {
    }
}
