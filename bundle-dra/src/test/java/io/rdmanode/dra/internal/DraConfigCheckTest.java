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

    private static Map<String, Object> twoPools() {
        Map<String, Object> p = enabled();
        p.put("pools.0.name", "vfs-a");
        p.put("pools.0.selectors.pfNames", new String[] {"ens1f0#0-7"});
        p.put("pools.1.name", "vfs-b");
        p.put("pools.1.selectors.pfNames", new String[] {"ens2f0#0-7"});
        return p;
    }

    @Test
    void twoNamedPoolsWithSelectorsPassAndTheLastMayHaveNone() {
        assertThat(check(twoPools())).isEmpty();
        Map<String, Object> p = twoPools();
        p.remove("pools.1.selectors.pfNames");
        assertThat(check(p)).isEmpty();
    }

    @Test
    void eachBadPoolEntryIsRefusedAtItsKey() {
        Map<String, Object> p = twoPools();
        p.remove("pools.0.name");                                     // unnamed
        p.put("pools.1.name", "Vfs_B");                               // not a pool name
        p.put("pools.1.selectors.vendors", new String[] {"zz15b3"});  // a selector the layer refuses
        p.put("pools.2.name", "vfs-c");                               // no selectors, not the last
        p.put("pools.3.name", "vfs-c");                               // duplicate
        p.put("pools.3.selectors.pfNames", new String[] {"ens2f0#0"});
        p.put("pool", "legacy");                                      // the single pool's keys, with pools
        p.put("selectors.ifNames", new String[] {"ens1f0"});

        assertThat(check(p)).extracting(ConfigValidator.Refusal::property).containsExactlyInAnyOrder(
                "pools.0.name", "pools.1.name", "pools.1.selectors.vendors", "pools.2.selectors", "pools.3.name",
                "pool", "selectors.ifNames");
        assertThat(check(p)).filteredOn(r -> r.property().equals("pools.3.name")).singleElement()
                .extracting(ConfigValidator.Refusal::message).asString().contains("duplicate", "vfs-c", "entry 2");
        assertThat(check(p)).allMatch(r -> r.configuration().equals(DraComponent.PID));
    }

    @Test
    void theComponentRefusesABadPoolAsTheCheckDoes() {
        Map<String, Object> p = twoPools();
        p.put("pools.1.name", "vfs-a");
        assertThat(check(p)).isNotEmpty();
        DraComponent.Settings settings = Converters.standardConverter().convert(p).to(DraComponent.Settings.class);
        assertThatThrownBy(() -> DraConfigCheck.require(settings, p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pools.1.name: duplicate pool name 'vfs-a'");
        assertThat(DraPools.of(twoPools(), "node-a")).extracting(PoolDevices.Pool::name)
                .containsExactly("vfs-a", "vfs-b");
        assertThat(DraPools.of(enabled(), "node-a")).extracting(PoolDevices.Pool::name).containsExactly("node-a");
    }
}
