// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.agent.testing.Proposals;
import io.rdmanode.deviceplugin.DeviceOwner;
import io.rdmanode.deviceplugin.DeviceOwnership;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Ownership;
import io.rdmanode.deviceplugin.shared.testing.SharedPoolTesting;
import io.rdmanode.deviceplugin.testing.DevicePluginTesting;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's ownership rule over the recorded ConnectX-5 (the demo host): a shared pool that selects VFs an
 * SR-IOV pool takes is refused by the layer's validator, naming both pools, with each bundle's own compute
 * function; the demo's corrected pools pass; without the host (offline check-config) only static checks run.
 */
class OwnershipTest {

    static final String SHARED = "io.rdmanode.deviceplugin.shared.pools";

    @TempDir
    Path dir;
    private SriovHost host;
    private DeviceOwnership table;

    @BeforeEach
    void unpack() {
        host = SriovHost.recorded(dir);
        DevicePluginLayer layer = host.layer();
        DeviceOwner sriov = new DeviceOwner() {
            @Override
            public String factoryPid() {
                return SriovPoolDevicePlugin.PID;
            }

            @Override
            public List<Ownership.Claim> claims(Map<String, Map<String, Object>> c, HostSnapshot snapshot) {
                return SriovPoolOwner.claims(c, snapshot, layer, Map.of());
            }
        };
        table = DevicePluginTesting.ownership(List.of(SharedPoolTesting.owner(layer), sriov));
    }

    /** The demo configuration before the fix: hca_vf_pf0 shares three VFs the SR-IOV pools take. */
    static Map<String, Map<String, Object>> demoBefore() {
        Map<String, Map<String, Object>> m = new LinkedHashMap<>();
        m.put(SHARED + "~hca_pf", Map.of("name", "hca_pf", "rdmaHcaMax", 100,
                "selectors.vendors", new String[] {"15b3"}, "selectors.deviceIDs", new String[] {"1017"}));
        m.put(SHARED + "~hca_vf_pf0", Map.of("name", "hca_vf_pf0", "rdmaHcaMax", 50,
                "selectors.ifNames", new String[] {"ens1f0v0", "ens1f0v1", "ens1f0v7"}));
        m.putAll(sriovPools());
        return m;
    }

    static Map<String, Map<String, Object>> sriovPools() {
        Map<String, Map<String, Object>> m = new LinkedHashMap<>();
        m.put(SriovPoolDevicePlugin.PID + "~sriov_pf0_low", Map.of("name", "sriov_pf0_low", "policy", "pack",
                "selectors.pfNames", new String[] {"ens1f0#0-3"}, ".index", 0));
        m.put(SriovPoolDevicePlugin.PID + "~sriov_rdma", Map.of("name", "sriov_rdma",
                "selectors.vendors", new String[] {"15b3"}, "selectors.devices", new String[] {"1018"},
                "selectors.isRdma", true, ".index", 1));
        return m;
    }

    private ConfigValidator.Proposal proposal(Map<String, Map<String, Object>> configurations, boolean live) {
        return Proposals.with(configurations, live ? Map.of(RdmaDiscovery.class, host, DeviceOwnership.class, table)
                : Map.of());
    }

    @Test
    void sharedPoolOverSriovVfsIsRefusedNamingBothPools() {
        List<ConfigValidator.Refusal> refusals = DevicePluginTesting.validator().validate(proposal(demoBefore(), true));

        assertThat(refusals).hasSize(2);
        assertThat(refusals.get(0).configuration()).isEqualTo(SriovPoolDevicePlugin.PID + "~sriov_pf0_low");
        assertThat(refusals.get(0).message()).isEqualTo("pools hca_vf_pf0 (shared) and sriov_pf0_low (exclusive)"
                + " would both own 0000:3b:00.2, 0000:3b:00.3: a device has one owner on the node (an exclusive"
                + " pool shares no device; narrow the selectors of one of them)");
        assertThat(refusals.get(1).message()).startsWith("pools hca_vf_pf0 (shared) and sriov_rdma (exclusive)"
                + " would both own 0000:3b:01.1:");
    }

    /** config/demo.conf's pools, as fixed: hca_vf_pf0 takes VFs 4, 5 and 7 of PF0, sriov_rdma the others. */
    @Test
    void demoPoolsAsFixedPass() {
        Map<String, Map<String, Object>> fixed = new LinkedHashMap<>(demoBefore());
        fixed.put(SHARED + "~hca_vf_pf0", Map.of("name", "hca_vf_pf0", "rdmaHcaMax", 50,
                "selectors.ifNames", new String[] {"ens1f0v4", "ens1f0v5", "ens1f0v7"}));
        fixed.put(SriovPoolDevicePlugin.PID + "~sriov_rdma", Map.of("name", "sriov_rdma",
                "selectors.vendors", new String[] {"15b3"}, "selectors.devices", new String[] {"1018"},
                "selectors.isRdma", true, "selectors.pfNames", new String[] {"ens1f0#6", "ens2f0"}, ".index", 1));

        assertThat(DevicePluginTesting.validator().validate(proposal(fixed, true))).isEmpty();
        assertThat(table.claims(fixed, host.snapshot())).extracting(Ownership.Claim::pool, c -> c.devices().size())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("hca_pf", 2),
                        org.assertj.core.groups.Tuple.tuple("hca_vf_pf0", 3),
                        org.assertj.core.groups.Tuple.tuple("sriov_pf0_low", 4),
                        org.assertj.core.groups.Tuple.tuple("sriov_rdma", 9));
    }

    @Test
    void withoutTheHostOnlyStaticChecksRun() {
        Map<String, Map<String, Object>> m = new LinkedHashMap<>(demoBefore());
        m.put(DevicePluginLayer.PID, Map.of("hostDevRoot", "dev"));

        assertThat(DevicePluginTesting.validator().validate(proposal(m, false)))
                .containsExactly(new ConfigValidator.Refusal(DevicePluginLayer.PID, "hostDevRoot",
                        "hostDevRoot = \"dev\": must be an absolute path, e.g. /dev or /var/run/cdi"));
    }

    @Test
    void twoExclusiveOwnersOfOneDeviceConflict() {
        Ownership.Claim a = new Ownership.Claim("x~a", "a", true, java.util.Set.of("0000:3b:00.2"));
        Ownership.Claim b = new Ownership.Claim("x~b", "b", true, java.util.Set.of("0000:3b:00.2", "0000:3b:00.3"));
        Ownership.Claim c = new Ownership.Claim("y~c", "c", false, java.util.Set.of("0000:3b:00.3"));
        Ownership.Claim d = new Ownership.Claim("y~d", "d", false, java.util.Set.of("0000:3b:00.3"));

        assertThat(Ownership.conflicts(List.of(a, b, c, d))).extracting(Ownership.Conflict::message)
                .containsExactly(
                        "pools a (exclusive) and b (exclusive) would both own 0000:3b:00.2: a device has one owner"
                                + " on the node (an exclusive pool shares no device; narrow the selectors of one"
                                + " of them)",
                        "pools b (exclusive) and c (shared) would both own 0000:3b:00.3: a device has one owner on"
                                + " the node (an exclusive pool shares no device; narrow the selectors of one of"
                                + " them)",
                        "pools b (exclusive) and d (shared) would both own 0000:3b:00.3: a device has one owner on"
                                + " the node (an exclusive pool shares no device; narrow the selectors of one of"
                                + " them)");
    }
}
