// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.agent.SettingException;
import io.rdmanode.agent.testing.Proposals;
import io.rdmanode.deviceplugin.PoolConfigurations;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every value the SR-IOV pool component refuses is refused by its validator, naming the property and the forms. */
class SriovPoolValidatorTest {

    @SafeVarargs
    private static List<ConfigValidator.Refusal> validate(Map<String, Object>... pools) {
        return new SriovPoolValidator().validate(Proposals.of(Proposals.pools(SriovPoolDevicePlugin.PID, pools)));
    }

    private static ConfigValidator.Refusal only(Map<String, Object> pool) {
        return Proposals.only(validate(pool), SriovPoolDevicePlugin.PID + "~" + pool.get("name"));
    }

    @Test
    void aValidPoolPasses() {
        assertThat(validate(Map.of("name", "a", "selectors.pfNames", new String[] {"ens1f0#0-3"}))).isEmpty();
    }

    @Test
    void badSelectorValuesAreRefusedWithTheAcceptedForm() {
        assertThat(only(Map.of("name", "a", "selectors.pciAddresses", new String[] {"zz:zz"})))
                .extracting(ConfigValidator.Refusal::property, ConfigValidator.Refusal::message)
                .containsExactly("selectors.pciAddresses", "pciAddresses: 'zz:zz' is not a PCI address (dddd:bb:dd.f)");
        assertThat(only(Map.of("name", "a", "selectors.pfNames", new String[] {"#7-3"})))
                .satisfies(r -> assertThat(r.property()).isEqualTo("selectors.pfNames"));
        assertThat(only(Map.of("name", "a", "selectors.linkTypes", new String[] {"fddi"})))
                .extracting(ConfigValidator.Refusal::property, ConfigValidator.Refusal::message)
                .containsExactly("selectors.linkTypes", "linkTypes: 'fddi' is not one of ether, infiniband");
    }

    @Test
    void noSelectorIsRefusedListingTheSelectors() {
        assertThat(only(Map.of("name", "a"))).satisfies(r -> {
            assertThat(r.property()).isEqualTo("selectors");
            assertThat(r.message()).contains("set at least one of selectors.vendors");
        });
    }

    @Test
    void resourceNamesKubeletRejectsAndAnUnknownPolicyAreRefused() {
        assertThat(only(Map.of("name", "a", "resourcePrefix", "bad prefix!", "selectors.vendors",
                new String[] {"15b3"}))).satisfies(r -> {
                    assertThat(r.property()).isEqualTo("resourcePrefix");
                    assertThat(r.message()).contains("domain 'bad prefix!' is not a DNS subdomain")
                            .contains("e.g. rdma or example.com");
                });
        assertThat(only(Map.of("name", "a", "resourceName", "-x", "selectors.vendors", new String[] {"15b3"})))
                .satisfies(r -> assertThat(r.property()).isEqualTo("resourceName"));
        assertThat(only(Map.of("name", "a", "policy", "random", "selectors.vendors", new String[] {"15b3"})))
                .extracting(ConfigValidator.Refusal::property, ConfigValidator.Refusal::message)
                .containsExactly("policy", "pool a: policy 'random' is not one of spread, pack");
    }

    @Test
    void aRefusalIsPlacedAtThePropertyItsSettingExceptionNames() {
        assertThat(only(Map.of("name", "a", "deviceInfoDir", "devinfo", "selectors.vendors", new String[] {"15b3"})))
                .satisfies(r -> assertThat(r.property()).isEqualTo("deviceInfoDir"));
        assertThat(only(Map.of("name", "a", "selectors.devices", new String[] {"10 18"})))
                .extracting(ConfigValidator.Refusal::property, ConfigValidator.Refusal::message)
                .containsExactly("selectors.devices", "devices: '10 18' is not a PCI id (hex, e.g. 15b3)");
        assertThat(only(Map.of("name", "a", "selectors.rootDevices", new String[] {"ens1f0"})))
                .satisfies(r -> assertThat(r.property()).isEqualTo("selectors.rootDevices"));
    }

    /** The layer's validator names a pool's resource with the same default (one pool per resource name). */
    @Test
    void theResourcePrefixDefaultIsTheLayers() throws NoSuchMethodException {
        assertThat(SriovPoolDevicePlugin.Config.class.getMethod("resourcePrefix").getDefaultValue())
                .isEqualTo(PoolConfigurations.DEFAULT_RESOURCE_PREFIX);
    }
}
