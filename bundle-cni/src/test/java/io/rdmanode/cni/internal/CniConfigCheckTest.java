// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.agent.testing.Proposals;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The CNI component's own configuration check: what check-config and the reloader refuse, activation refuses. */
class CniConfigCheckTest {

    private static List<ConfigValidator.Refusal> check(Map<String, Object> properties) {
        return new CniConfigCheck().validate(Proposals.of(Map.of(CniComponent.PID, properties,
                "io.rdmanode.other", Map.of("socket", "x"))));
    }

    @Test
    void theShippedDefaultsAndAnEightyTwoByteSocketPass() {
        assertThat(check(Map.of())).isEmpty();
        assertThat(check(Map.of("socket", "/run/" + "s".repeat(77)))).isEmpty();
        assertThat(CniConfigCheck.MAX_SOCKET_BYTES).isEqualTo(82);
    }

    @Test
    void aSocketLongerThanTheClientsSlotIsRefusedWithTheLimit() {
        assertThat(check(Map.of("socket", "/run/" + "s".repeat(78)))).singleElement().satisfies(r -> {
            assertThat(r.configuration()).isEqualTo(CniComponent.PID);
            assertThat(r.property()).isEqualTo("socket");
            assertThat(r.message()).contains("is 83 bytes").contains("at most 82 bytes");
        });
    }

    @Test
    void aStateDirLongerThanTheClientsSlotIsRefusedWithTheLimit() {
        assertThat(check(Map.of("stateDir", "/var/" + "s".repeat(222)))).isEmpty();
        assertThat(check(Map.of("stateDir", "/var/" + "s".repeat(223)))).singleElement().satisfies(r -> {
            assertThat(r.property()).isEqualTo("stateDir");
            assertThat(r.message()).contains("228 bytes", "at most 227 bytes", "state dir slot");
        });
    }

    @Test
    void relativeEmptyAndDotDotPathsAreRefused() {
        assertThat(check(Map.of("socket", "cni.sock", "binDir", "", "stateDir", "/var/../x")))
                .extracting(ConfigValidator.Refusal::property).containsExactly("socket", "binDir", "stateDir");
    }

    @Test
    void activationRunsTheSameCheck() {
        CniComponent.Config bad = TestAgent.config(java.nio.file.Path.of("/tmp/x"), Map.of("socket", "relative.sock",
                "installClient", false));
        assertThatThrownBy(() -> CniConfigCheck.require(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("socket: 'relative.sock' is relative");
    }
}
