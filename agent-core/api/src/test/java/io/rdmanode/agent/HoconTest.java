// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HoconTest {

    private static Config resolve(String text, Map<String, String> properties) {
        return Hocon.resolve(ConfigFactory.parseString(text), Hocon.substitutions(properties));
    }

    @Test
    void resolvesAgainstTheGivenPropertiesAndKeepsOnlyTheFilesKeys() {
        Config config = resolve("agent.runtime.stateDir = ${rdma.agent.stateDir}/x",
                Map.of("rdma.agent.stateDir", "/run/demo"));
        assertThat(config.getString("agent.runtime.stateDir")).isEqualTo("/run/demo/x");
        assertThat(config.root().keySet()).containsExactly("agent");
    }

    @Test
    void keepsTheOverrideIdiomThatResolveWithRejects() {
        Config config = resolve("port = 9456\nport = ${?RDMA_AGENT_TEST_SURELY_UNSET}\nname = ${?ALSO_UNSET_X}",
                Map.of());
        assertThat(config.getInt("port")).isEqualTo(9456);
        assertThat(config.hasPath("name")).isFalse();
    }

    @Test
    void failsOnAMissingRequiredSubstitution() {
        assertThatThrownBy(() -> resolve("dir = ${rdma.agent.nothing}", Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("rdma.agent.nothing");
    }
}
