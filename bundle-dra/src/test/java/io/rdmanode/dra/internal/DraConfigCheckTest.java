// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.agent.ConfigValidator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.osgi.util.converter.Converters;

/** {@code dra { ... }} judged as check-config and a live reload judge it, and as the component refuses it. */
class DraConfigCheckTest {

    private static List<ConfigValidator.Refusal> check(Map<String, Object> dra) {
        return new DraConfigCheck().validate(new ConfigValidator.Proposal() {
            @Override
            public Map<String, Map<String, Object>> configurations() {
                return Map.of(DraComponent.PID, dra);
            }

            @Override
            public <T> Optional<T> service(Class<T> type) {
                return Optional.empty();
            }
        });
    }

    private static Map<String, Object> enabled() {
        Map<String, Object> p = new HashMap<>();
        p.put("enabled", true);
        p.put("nodeName", "node-a");
        return p;
    }

    @Test
    void theDocumentedDefaultsWithANodeNamePass() {
        assertThat(check(enabled())).isEmpty();
        assertThat(check(Map.of("enabled", false))).isEmpty();     // off: no node name needed
    }

    @Test
    void eachBadValueIsRefusedAtItsKey() {
        Map<String, Object> p = enabled();
        p.put("nodeName", "");
        p.put("driverName", "RDMA_driver");
        p.put("pool", "a//b");
        p.put("cdiDir", "var/run/cdi");
        p.put("kubeconfig", "kube.conf");
        p.put("selectors.vendors", new String[] {"zz15b3"});

        assertThat(check(p)).extracting(ConfigValidator.Refusal::property).containsExactlyInAnyOrder(
                "nodeName", "driverName", "pool", "cdiDir", "kubeconfig", "selectors.vendors");
        assertThat(check(p)).filteredOn(r -> r.property().equals("nodeName")).singleElement()
                .extracting(ConfigValidator.Refusal::message).asString().contains("NODE_NAME");
    }

    /** The registration socket carries the driver name and the instance tag: a long registry dir overflows sun_path. */
    @Test
    void socketsThatDoNotFitAUnixSocketAddressAreRefused() {
        Map<String, Object> p = enabled();
        String deep = "/var/lib/kubelet/plugins_registry/" + "d".repeat(40);     // 74 bytes
        p.put("registryDir", deep);
        assertThat(check(p)).singleElement().satisfies(r -> {
            assertThat(r.property()).isEqualTo("registryDir");
            assertThat(r.message()).contains("rdma.rdmanode.io-xxxxxxxx-reg.sock").contains("at most 107 bytes");
        });
        p.put("socketPerInstance", false);          // fixed names are 9 bytes shorter
        assertThat(check(p)).isEmpty();
    }

    @Test
    void theComponentRefusesWhatTheCheckRefuses() {
        Map<String, Object> p = enabled();
        p.put("nodeName", "");
        assertThat(check(p)).isNotEmpty();
        assertThatThrownBy(() -> DraConfigCheck.require(
                Converters.standardConverter().convert(p).to(DraComponent.Settings.class)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nodeName: required");
    }
}
