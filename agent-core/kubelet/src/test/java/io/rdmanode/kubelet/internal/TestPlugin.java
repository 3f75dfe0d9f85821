// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.DevicePluginException;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** A device plugin with a device list the test sets; Allocate maps each ID to /dev/test/<id>. */
final class TestPlugin implements DevicePlugin {

    private final String resource;
    private volatile List<Device> devices;
    volatile RuntimeException failNextAllocate;

    TestPlugin(String resource, List<Device> devices) {
        this.resource = resource;
        this.devices = devices;
    }

    void set(List<Device> next) {
        devices = next;
    }

    @Override
    public String resourceName() {
        return resource;
    }

    @Override
    public List<Device> devices() {
        return devices;
    }

    @Override
    public ContainerAllocation allocate(List<String> deviceIds) {
        RuntimeException failure = failNextAllocate;
        if (failure != null) {
            failNextAllocate = null;
            throw failure;
        }
        List<String> known = devices.stream().map(Device::id).toList();
        List<String> unknown = deviceIds.stream().filter(id -> !known.contains(id)).toList();
        if (!unknown.isEmpty()) {
            throw new DevicePluginException(DevicePluginException.Code.INVALID_ARGUMENT, resource,
                    "unknown device id(s) " + unknown + " for resource " + resource);
        }
        return new ContainerAllocation(Map.of("TEST_DEVICES", String.join(",", deviceIds)), List.of(),
                deviceIds.stream().map(id -> new DeviceNode("/dev/test/" + id, "/dev/test/" + id, "rw"))
                        .collect(Collectors.toList()), Map.of(), List.of());
    }
}
