// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.agent.ConfigValidator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every value the shared pool component refuses is refused by its validator, naming the property and the forms. */
class SharedPoolValidatorTest {

    private static List<ConfigValidator.Refusal> validate(Map<String, Object>... pools) {
        Map<String, Map<String, Object>> m = new LinkedHashMap<>();
        for (Map<String, Object> p : pools) {
            m.put(SharedPoolDevicePlugin.PID + "~" + p.get("name"), p);
        }
        return new SharedPoolValidator().validate(new ConfigValidator.Proposal() {
            @Override
            public Map<String, Map<String, Object>> configurations() {
                return m;
            }

            @Override
            public <T> Optional<T> service(Class<T> type) {
                return Optional.empty();
            }
        });
    }

    private static ConfigValidator.Refusal only(Map<String, Object> pool) {
        List<ConfigValidator.Refusal> r = validate(pool);
        assertThat(r).hasSize(1);
        assertThat(r.get(0).configuration()).isEqualTo(SharedPoolDevicePlugin.PID + "~" + pool.get("name"));
        return r.get(0);
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
    void twoPoolsWithOneResourceAreRefused() {
        List<ConfigValidator.Refusal> r = validate(
                Map.of("name", "a", "resourceName", "vf", "selectors.vendors", new String[] {"15b3"}),
                Map.of("name", "b", "resourceName", "vf", "selectors.vendors", new String[] {"15b3"}));

        assertThat(r).extracting(ConfigValidator.Refusal::configuration, ConfigValidator.Refusal::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(SharedPoolDevicePlugin.PID + "~b",
                        "pool b: resource rdma/vf is already pool a's; one pool per resource"));
    }
}
