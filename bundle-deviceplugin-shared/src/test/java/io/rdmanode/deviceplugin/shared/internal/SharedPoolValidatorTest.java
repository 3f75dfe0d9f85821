// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.agent.SettingException;
import io.rdmanode.agent.testing.Proposals;
import io.rdmanode.deviceplugin.PoolConfigurations;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every value the shared pool component refuses is refused by its validator, naming the property and the forms. */
class SharedPoolValidatorTest {

    @SafeVarargs
    private static List<ConfigValidator.Refusal> validate(Map<String, Object>... pools) {
        return new SharedPoolValidator().validate(Proposals.of(Proposals.pools(SharedPoolDevicePlugin.PID, pools)));
    }

    private static ConfigValidator.Refusal only(Map<String, Object> pool) {
        return Proposals.only(validate(pool), SharedPoolDevicePlugin.PID + "~" + pool.get("name"));
    }

    @Test
    void aValidPoolPasses() {
        assertThat(validate(Map.of("name", "a", "selectors.ifNames", new String[] {"ens1f0"}))).isEmpty();
    }

    @Test
    void badSelectorValuesAreRefusedWithTheAcceptedForm() {
        assertThat(only(Map.of("name", "a", "selectors.vendors", new String[] {"zz"})))
                .extracting(ConfigValidator.Refusal::property, ConfigValidator.Refusal::message)
                .containsExactly("selectors.vendors", "vendors: 'zz' is not a PCI id (hex, e.g. 15b3)");
        assertThat(only(Map.of("name", "a", "selectors.linkTypes", new String[] {"fddi"})))
                .extracting(ConfigValidator.Refusal::property, ConfigValidator.Refusal::message)
                .containsExactly("selectors.linkTypes", "linkTypes: 'fddi' is not one of ether, infiniband");
        assertThat(only(Map.of("name", "a", "rdmaHcaMax", 0, "selectors.vendors", new String[] {"15b3"})))
                .satisfies(r -> assertThat(r.property()).isEqualTo("rdmaHcaMax"));
    }

    @Test
    void noSelectorIsRefusedListingTheSelectors() {
        assertThat(only(Map.of("name", "a"))).satisfies(r -> {
            assertThat(r.property()).isEqualTo("selectors");
            assertThat(r.message()).contains("set at least one of selectors.vendors");
        });
    }

    @Test
    void resourceNamesKubeletRejectsAreRefused() {
        assertThat(only(Map.of("name", "a", "resourcePrefix", "bad prefix!", "selectors.vendors",
                new String[] {"15b3"}))).satisfies(r -> {
                    assertThat(r.property()).isEqualTo("resourcePrefix");
                    assertThat(r.message()).contains("domain 'bad prefix!' is not a DNS subdomain")
                            .contains("e.g. rdma or example.com");
                });
        assertThat(only(Map.of("name", "a", "resourceName", "-x", "selectors.vendors", new String[] {"15b3"})))
                .satisfies(r -> assertThat(r.property()).isEqualTo("resourceName"));
    }

    @Test
    void aRefusalIsPlacedAtThePropertyItsSettingExceptionNames() {
        assertThat(only(Map.of("name", "a", "selectors.deviceIDs", new String[] {"10 17"})))
                .extracting(ConfigValidator.Refusal::property, ConfigValidator.Refusal::message)
                .containsExactly("selectors.deviceIDs", "deviceIDs: '10 17' is not a PCI id (hex, e.g. 15b3)");
        assertThatThrownBy(() -> SharedPoolDevicePlugin.settings(PoolConfigurations.typed(
                SharedPoolDevicePlugin.Config.class, Map.of("name", "a", "selectors.drivers", new String[] {" "}))))
                .isInstanceOfSatisfying(SettingException.class, e -> assertThat(e.property())
                        .isEqualTo("selectors.drivers"))
                .hasMessage("drivers: empty entry");
    }
}
