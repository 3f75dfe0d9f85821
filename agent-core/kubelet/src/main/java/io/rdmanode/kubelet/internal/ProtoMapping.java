// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.PluginOptions;
import io.rdmanode.kubelet.internal.v1beta1.CDIDevice;
import io.rdmanode.kubelet.internal.v1beta1.ContainerAllocateResponse;
import io.rdmanode.kubelet.internal.v1beta1.DevicePluginOptions;
import io.rdmanode.kubelet.internal.v1beta1.DeviceSpec;
import io.rdmanode.kubelet.internal.v1beta1.ListAndWatchResponse;
import io.rdmanode.kubelet.internal.v1beta1.Mount;
import io.rdmanode.kubelet.internal.v1beta1.NUMANode;
import io.rdmanode.kubelet.internal.v1beta1.TopologyInfo;
import java.util.List;

/** API records to and from the generated {@code v1beta1} messages; the only place that knows both. */
final class ProtoMapping {

    static final String HEALTHY = "Healthy";
    static final String UNHEALTHY = "Unhealthy";

    private ProtoMapping() {
    }

    static DevicePluginOptions options(PluginOptions options) {
        return DevicePluginOptions.newBuilder().setPreStartRequired(options.preStartRequired())
                .setGetPreferredAllocationAvailable(options.preferredAllocationAvailable()).build();
    }

    static ListAndWatchResponse devices(List<Device> devices) {
        ListAndWatchResponse.Builder response = ListAndWatchResponse.newBuilder();
        for (Device d : devices) {
            io.rdmanode.kubelet.internal.v1beta1.Device.Builder b = io.rdmanode.kubelet.internal.v1beta1.Device
                    .newBuilder().setID(d.id()).setHealth(d.healthy() ? HEALTHY : UNHEALTHY);
            if (!d.numaNodes().isEmpty()) {
                TopologyInfo.Builder topology = TopologyInfo.newBuilder();
                d.numaNodes().forEach(n -> topology.addNodes(NUMANode.newBuilder().setID(n)));
                b.setTopology(topology);
            }
            response.addDevices(b);
        }
        return response.build();
    }

    static ContainerAllocateResponse allocation(ContainerAllocation a) {
        ContainerAllocateResponse.Builder b = ContainerAllocateResponse.newBuilder()
                .putAllEnvs(a.envs()).putAllAnnotations(a.annotations());
        a.mounts().forEach(m -> b.addMounts(Mount.newBuilder().setContainerPath(m.containerPath())
                .setHostPath(m.hostPath()).setReadOnly(m.readOnly())));
        a.devices().forEach(d -> b.addDevices(DeviceSpec.newBuilder().setContainerPath(d.containerPath())
                .setHostPath(d.hostPath()).setPermissions(d.permissions())));
        a.cdiDevices().forEach(name -> b.addCdiDevices(CDIDevice.newBuilder().setName(name)));
        return b.build();
    }
}
