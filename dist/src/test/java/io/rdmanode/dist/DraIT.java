// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.kubelet.testing.KubeletDouble;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The DRA driver as shipped (issues 24, 27): the built distribution with its optional DRA bundle switched on in
 * the configuration ({@code agent.bundles.dra.enabled = true}, installed from {@code optional/}) and a {@code dra}
 * section enabled starts the bundle and serves its registration and DRA sockets (0600, named for the instance); a
 * successor started on the
 * same state directory registers sockets of its own and the predecessor withdraws its registration when it hands
 * over (kubelet's rolling update of DRA drivers keeps the newest); sockets a SIGKILLed instance left are removed by
 * the next one. The API server is unreachable here (a closed port): /status says so, the sockets serve anyway.
 */
class DraIT {

    private static final String DRIVER = DraNode.DRIVER;

    @Test
    void theShippedDriverRegistersPerInstanceAndHandsItsRegistrationOver() throws Exception {
        // The API server is a closed port. As an operator enables it: switched on by name in the configuration,
        // installed from optional/ (a DaemonSet's image is read-only to its ConfigMap); nothing is copied into
        // bundles/.
        try (DraNode node = new DraNode("dra", "https://127.0.0.1:1")) {
            run(node, node.writeConfig(""));
        }
    }

    private static void run(DraNode node, Path config) throws Exception {
        Path home = node.home;
        Path state = node.state;
        Path registry = node.registry;
        Path draDir = node.draDir;
        try (KubeletDouble kubelet = KubeletDouble.start(node.pluginDir, state.resolve("pod-resources/kubelet.sock"));
             AgentProcess first = AgentProcess.start(home, state, Map.of(), "--config", config.toString())) {
            first.awaitStarted(Duration.ofSeconds(60));
            Path firstReg = awaitOne(registry, first);
            Path firstDra = awaitOneIn(draDir, first);
            for (Path s : List.of(firstReg, firstDra)) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(s))).isEqualTo("rw-------");
            }
            assertThat(first.output()).contains("optional bundle switched on by agent.bundles");
            assertThat(home.resolve("bundles/rdma-agent-dra.jar")).doesNotExist();
            var dra = AgentProcess.json(node.url("/status")).getAsJsonObject("dra");
            assertThat(dra.get("enabled").getAsBoolean()).isTrue();
            assertThat(dra.get("endpoint").getAsString()).isEqualTo(firstDra.toString());

            try (AgentProcess second = AgentProcess.start(home, state, Map.of(), "--config", config.toString())) {
                Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                        .until(() -> first.output().contains("handed over: DRA registration"));
                Path secondReg = awaitOne(registry, second);
                Path secondDra = awaitOneIn(draDir, second);
                assertThat(secondReg).isNotEqualTo(firstReg);
                assertThat(secondDra).isNotEqualTo(firstDra);
                assertThat(firstReg).doesNotExist();
                assertThat(first.terminate(Duration.ofSeconds(30))).as(first.output()).isZero();
                assertThat(secondReg).exists();
                assertThat(secondDra).exists();

                second.kill();                                    // SIGKILL: its sockets stay behind
                assertThat(secondReg).exists();
                try (AgentProcess third = AgentProcess.start(home, state, Map.of(), "--config", config.toString())) {
                    third.awaitStarted(Duration.ofSeconds(60));
                    Path thirdReg = awaitOne(registry, third);
                    assertThat(thirdReg).isNotEqualTo(secondReg);
                    assertThat(secondReg).doesNotExist();
                    assertThat(secondDra).doesNotExist();
                    assertThat(third.output()).contains("removed stale DRA socket");
                    assertThat(third.terminate(Duration.ofSeconds(30))).as(third.output()).isZero();
                    assertThat(thirdReg).doesNotExist();
                }
            }
        }
    }

    /** The one registration socket of this driver in {@code registry}, once there is exactly one. */
    private static Path awaitOne(Path registry, AgentProcess agent) {
        return awaitSingle(registry, DRIVER + "-", "-reg.sock", agent);
    }

    static Path awaitOneIn(Path draDir, AgentProcess agent) {
        return awaitSingle(draDir, "dra-", ".sock", agent);
    }

    private static Path awaitSingle(Path dir, String prefix, String suffix, AgentProcess agent) {
        Path[] found = new Path[1];
        Awaitility.await(prefix + "*" + suffix + " in " + dir).atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50)).until(() -> {
                    List<Path> all = list(dir, prefix, suffix);
                    if (all.size() == 1 && agent.output().contains(all.get(0).getFileName().toString().replace(suffix,
                            "").replace(prefix, ""))) {
                        found[0] = all.get(0);
                        return true;
                    }
                    return false;
                });
        return found[0];
    }

    private static List<Path> list(Path dir, String prefix, String suffix) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)
                    && f.getFileName().toString().endsWith(suffix)).toList();
        }
    }
}
