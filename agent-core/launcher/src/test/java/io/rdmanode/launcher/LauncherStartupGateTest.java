// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class LauncherStartupGateTest {

    private final List<Integer> exits = new CopyOnWriteArrayList<>();
    private final LauncherStartupGate gate = new LauncherStartupGate(Path.of("/etc/agent.conf"), exits::add);

    @Test
    void whileStartingTheFirstUnavailableResourceStopsTheAgentWithFiveOnce() {
        assertThat(gate.unavailable("cannot serve the CNI socket /x: denied; change cni.socket")).isTrue();
        assertThat(gate.unavailable("cannot open the Freeflow router socket /y")).isTrue();

        await().until(() -> !exits.isEmpty());
        assertThat(exits).containsExactly(ExitCode.RESOURCE_UNAVAILABLE.code);
    }

    @Test
    void onceReadyTheComponentReportsItAndTheAgentKeepsServing() {
        gate.ready();

        assertThat(gate.unavailable("cannot serve the CNI socket /x")).isFalse();
        assertThat(exits).isEmpty();
    }
}
