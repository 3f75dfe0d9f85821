// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.agent.testing.Proposals;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One pool per extended resource name on the node, whichever bundle's pools they are: kubelet keeps one device
 * plugin per name. Checked offline (no host needed), each clashing pool refused at its resourceName.
 */
class DevicePluginValidatorTest {

    static final String SHARED = "io.rdmanode.deviceplugin.shared.pools";
    static final String SRIOV = "io.rdmanode.deviceplugin.sriov.pools";
    static final String CLASH = " would both register rdma/vf: kubelet keeps one device plugin per extended resource"
            + " name (give each pool its own resourceName or resourcePrefix)";

    private static List<ConfigValidator.Refusal> validate(Map<String, Map<String, Object>> configurations) {
        return new DevicePluginValidator().validate(Proposals.of(configurations));
    }

    @Test
    void aSharedAndAnSriovPoolOfOneResourceNameAreBothRefusedNamingBoth() {
        Map<String, Map<String, Object>> m = new LinkedHashMap<>(Proposals.pools(SHARED,
                Map.of("name", "hca", "resourceName", "vf", "selectors.vendors", new String[] {"15b3"})));
        m.putAll(Proposals.pools(SRIOV, Map.of("name", "vf", "selectors.devices", new String[] {"1018"})));

        String message = "pools deviceplugin.shared.pools[hca] and deviceplugin.sriov.pools[vf]" + CLASH;
        assertThat(validate(m)).extracting(ConfigValidator.Refusal::configuration, ConfigValidator.Refusal::property,
                ConfigValidator.Refusal::message).containsExactly(tuple(SHARED + "~hca", "resourceName", message),
                        tuple(SRIOV + "~vf", "resourceName", message));
    }

    @Test
    void twoPoolsOfOneBundleClashToo() {
        assertThat(validate(Proposals.pools(SRIOV, Map.of("name", "a", "resourceName", "vf"),
                Map.of("name", "b", "resourceName", "vf")))).extracting(ConfigValidator.Refusal::message)
                .containsOnly("pools deviceplugin.sriov.pools[a] and deviceplugin.sriov.pools[b]" + CLASH)
                .hasSize(2);
    }

    @Test
    void anotherPrefixIsAnotherResourceAndOtherConfigurationsAreNotPools() {
        Map<String, Map<String, Object>> m = new LinkedHashMap<>(Proposals.pools(SHARED,
                Map.of("name", "vf", "resourcePrefix", "example.com")));
        m.putAll(Proposals.pools(SRIOV, Map.of("name", "vf")));
        m.put("io.rdmanode.deviceplugin.common", Map.of());
        m.put("io.rdmanode.other.pools~vf", Map.of("name", "vf"));

        assertThat(validate(m)).isEmpty();
    }
}
