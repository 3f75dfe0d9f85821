// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.BackendStatus;
import io.rdmanode.discovery.CharDevice;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** PCI function to RDMA device: the function's own devices, else the soft devices (rxe, siw) on its netdev. */
class DiscoveryResolverTest {

    private static final PciAddress VF = PciAddress.parse("0000:3b:02.1").orElseThrow();
    private static final PciAddress NIC = PciAddress.parse("0000:00:04.0").orElseThrow();

    private static PciFunction function(PciAddress a, String driver, List<String> rdma, List<String> net) {
        return new PciFunction(a, "0x15b3", "0x101e", Optional.empty(), Optional.empty(), "0x020000",
                Optional.of(driver), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), rdma, net);
    }

    private static RdmaDevice device(String name, RdmaDevice.NodeType type, Optional<PciAddress> own,
                                     Optional<String> driver, Optional<String> parent, Optional<PciAddress> parentPci) {
        return new RdmaDevice(name, type, Optional.empty(), Optional.empty(), driver, own, parent, List.of(),
                CharDevice.absent("uverbs", Path.of("/dev/infiniband/uverbs9"), Optional.empty(), "test"), List.of(),
                parent.map(List::of).orElse(List.of()), parentPci);
    }

    private static DiscoveryResolver resolver(HostSnapshot s) {
        return new DiscoveryResolver(new RdmaDiscovery() {
            @Override
            public HostSnapshot snapshot() {
                return s;
            }

            @Override
            public HostSnapshot rescan() {
                return s;
            }

            @Override
            public Optional<RdmaDevice> readDevice(Path sys, String name) {
                return Optional.empty();
            }

            @Override
            public io.rdmanode.discovery.RdmaCounters counters() {
                throw new UnsupportedOperationException();
            }

            @Override
            public io.rdmanode.discovery.RdmaCounters counters(Path sys) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void addListener(RdmaTopologyListener listener) {
            }

            @Override
            public void removeListener(RdmaTopologyListener listener) {
            }
        });
    }

    private static HostSnapshot host() {
        return new HostSnapshot(1, Instant.EPOCH, BackendStatus.available("sysfs"),
                List.of(device("mlx5_7", RdmaDevice.NodeType.CA, Optional.of(VF), Optional.of("mlx5_core"),
                                Optional.empty(), Optional.empty()),
                        device("rxe0", RdmaDevice.NodeType.CA, Optional.empty(), Optional.empty(), Optional.of("eth0"),
                                Optional.of(NIC))),
                List.of(function(VF, "mlx5_core", List.of("mlx5_7"), List.of("ens1f0v1")),
                        function(NIC, "vmxnet3", List.of(), List.of("eth0"))),
                List.of(), CharDevice.absent("rdma_cm", Path.of("/dev/infiniband/rdma_cm"), Optional.empty(), "test"),
                NetnsMode.unknown("test"), List.of());
    }

    @Test
    void aFunctionsOwnDeviceWins() {
        assertThat(resolver(host()).rdmaDevices("0000:3b:02.1")).contains(List.of("mlx5_7"));
        assertThat(resolver(host()).driver("mlx5_7")).contains("mlx5_core");
    }

    @Test
    void aFunctionWithoutOneResolvesToTheSoftDeviceOnItsNetdev() {
        assertThat(resolver(host()).rdmaDevices("0000:00:04.0")).contains(List.of("rxe0"));
        assertThat(resolver(host()).driver("rxe0")).contains("rdma_rxe (Soft-RoCE on eth0)");
    }

    @Test
    void unknownFunctionsAndDevicesAreEmpty() {
        assertThat(resolver(host()).rdmaDevices("0000:99:00.0")).isEmpty();
        assertThat(resolver(host()).driver("mlx5_99")).isEmpty();
    }
}
