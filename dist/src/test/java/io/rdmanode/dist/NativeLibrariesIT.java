// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's two JNI libraries, Netty's epoll transport (every kubelet socket, the handover) and jffi's stub
 * (libc, RDMA netlink, verbs), load from the agent's own state directory, not from {@code java.io.tmpdir}: on a node
 * whose {@code /tmp} is mounted {@code noexec} (and so systemd's {@code PrivateTmp}) a library extracted there
 * cannot be loaded. Netty then had no epoll, and so no Unix-socket gRPC: the kubelet host failed and no pool could
 * serve. The distribution runs its demo with {@code java.io.tmpdir} on a real {@code noexec} tmpfs (root only).
 */
class NativeLibrariesIT {

    @TempDir
    Path temp;

    @Test
    void bothNativeLibrariesLoadFromTheStateDirectoryWhenTmpIsNoexec() throws Exception {
        Path tmp = Files.createDirectories(temp.resolve("noexec-tmp"));
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "noexec,nosuid,size=16m", "tmpfs", tmp.toString()) == 0,
                "mounting a noexec tmpfs needs root");
        try {
            Path home = temp.resolve("rdma-node-agent");
            AgentProcessIT.copyTree(AgentProcessIT.DIST, home);
            try (AgentProcess agent = AgentProcess.start(home, temp.resolve("unused"),
                    Map.of("RDMA_AGENT_HTTP_PORT", "0", "XDG_CACHE_HOME", temp.resolve("cache").toString(),
                            "TMPDIR", tmp.toString(), "JAVA_OPTS", "-Djava.io.tmpdir=" + tmp),
                    "--demo")) {
                AgentProcess.DemoBanner demo = agent.awaitDemoBanner(Duration.ofSeconds(60));
                assertThat(AgentProcess.status(demo.base() + "/startedz")).as(agent.output()).isEqualTo(200);
                try (var sockets = Files.list(demo.stateDir().resolve("device-plugins"))) {
                    assertThat(sockets.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sock")))
                            .as("pools serving on Unix sockets (Netty's epoll)\n%s", agent.output()).hasSize(4);
                }
                List<String> maps = Files.readAllLines(Path.of("/proc/" + agent.pid() + "/maps"));
                Path state = demo.stateDir().toRealPath();
                // jffi's own extraction names the file jffi<random>.so, Netty's libnetty_…<random>.so.
                assertThat(loadedFrom(maps, "libnetty_transport_native_epoll")).as("Netty's epoll library")
                        .isNotEmpty().allSatisfy(p -> assertThat(p).startsWith(state.toString()));
                assertThat(loadedFrom(maps, "jffi")).as("jffi's stub").isNotEmpty()
                        .allSatisfy(p -> assertThat(p).startsWith(state.toString()));
                assertThat(agent.output()).doesNotContain("ERROR");
                assertThat(agent.terminate(Duration.ofSeconds(15))).isZero();
            }
            try (var left = Files.list(tmp)) {
                assertThat(left).as("written to java.io.tmpdir").isEmpty();
            }
        } finally {
            run("umount", tmp.toString());
        }
    }

    /** The files a library whose file name contains {@code name} is mapped from. */
    private static List<String> loadedFrom(List<String> maps, String name) {
        return maps.stream().map(line -> line.split("\\s+", 6)).filter(f -> f.length == 6)
                .map(f -> f[5].strip()).filter(p -> p.endsWith(".so") && Path.of(p).getFileName() != null
                        && Path.of(p).getFileName().toString().contains(name)).distinct().toList();
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }
}
