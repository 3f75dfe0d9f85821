// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import io.rdmanode.kubelet.ContainerAllocation.Mount;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.PluginOptions;
import io.rdmanode.kubelet.internal.v1beta1.AllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.AllocateResponse;
import io.rdmanode.kubelet.internal.v1beta1.ContainerPreferredAllocationResponse;
import io.rdmanode.kubelet.internal.v1beta1.DevicePluginOptions;
import io.rdmanode.kubelet.internal.v1beta1.ListAndWatchResponse;
import io.rdmanode.kubelet.internal.v1beta1.PreStartContainerRequest;
import io.rdmanode.kubelet.internal.v1beta1.PreferredAllocationRequest;
import io.rdmanode.kubelet.internal.v1beta1.PreferredAllocationResponse;
import io.rdmanode.kubelet.internal.v1beta1.RegisterRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Our .proto against wire bytes assembled from the kubelet API's field table (fixtures/wire/README.md). */
class DeviceProtoWireTest {

    static byte[] fixture(String name) throws IOException {
        try (InputStream in = DeviceProtoWireTest.class.getResourceAsStream("/fixtures/wire/" + name + ".hex")) {
            String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            String hex = text.lines().map(l -> l.replaceAll("#.*", "")).collect(Collectors.joining())
                    .replaceAll("\\s", "");
            return HexFormat.of().parseHex(hex);
        }
    }

    private static void assertEncodesTo(Message message, String name) throws IOException {
        assertThat(HexFormat.of().formatHex(message.toByteArray())).isEqualTo(HexFormat.of().formatHex(fixture(name)));
    }

    @Test
    void decodesRegisterRequestAndEncodesOursIdentically() throws IOException {
        RegisterRequest r = RegisterRequest.parseFrom(fixture("register-request"));

        assertThat(r.getVersion()).isEqualTo("v1beta1");
        assertThat(r.getEndpoint()).isEqualTo("rdma-node-agent.rdma_hca_a.sock");
        assertThat(r.getResourceName()).isEqualTo("rdma/hca_a");
        assertThat(r.getOptions().getGetPreferredAllocationAvailable()).isTrue();
        assertThat(r.getOptions().getPreStartRequired()).isFalse();
        assertThat(r.getUnknownFields().asMap()).isEmpty();
        assertEncodesTo(RegisterRequest.newBuilder().setVersion(DevicePluginServer.API_VERSION)
                .setEndpoint("rdma-node-agent.rdma_hca_a.sock").setResourceName("rdma/hca_a")
                .setOptions(ProtoMapping.options(new PluginOptions(false, true))).build(), "register-request");
    }

    @Test
    void decodesDevicePluginOptions() throws IOException {
        DevicePluginOptions o = DevicePluginOptions.parseFrom(fixture("device-plugin-options"));

        assertThat(o.getPreStartRequired()).isTrue();
        assertThat(o.getGetPreferredAllocationAvailable()).isTrue();
        assertEncodesTo(ProtoMapping.options(new PluginOptions(true, true)), "device-plugin-options");
    }

    @Test
    void decodesListAndWatchResponseWithHealthAndNumaTopology() throws IOException {
        ListAndWatchResponse r = ListAndWatchResponse.parseFrom(fixture("list-and-watch-response"));

        assertThat(r.getDevicesList()).extracting(d -> d.getID(), d -> d.getHealth())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("hca_a-0", "Healthy"),
                        org.assertj.core.groups.Tuple.tuple("hca_a-1", "Unhealthy"));
        assertThat(r.getDevices(0).getTopology().getNodes(0).getID()).isZero();
        assertThat(r.getDevices(1).getTopology().getNodes(0).getID()).isEqualTo(1);
        assertEncodesTo(ProtoMapping.devices(List.of(new Device("hca_a-0", true, List.of(0L)),
                new Device("hca_a-1", false, List.of(1L)))), "list-and-watch-response");
    }

    @Test
    void decodesAllocateRequestAndResponse() throws IOException {
        AllocateRequest request = AllocateRequest.parseFrom(fixture("allocate-request"));
        AllocateResponse response = AllocateResponse.parseFrom(fixture("allocate-response"));

        assertThat(request.getContainerRequests(0).getDevicesIdsList()).containsExactly("hca_a-0", "hca_a-1");
        var c = response.getContainerResponses(0);
        assertThat(c.getEnvsMap()).containsExactly(Map.entry("RDMA_POOL", "hca_a"));
        assertThat(c.getMounts(0).getReadOnly()).isTrue();
        assertThat(c.getDevices(0).getContainerPath()).isEqualTo("/dev/infiniband/uverbs0");
        assertThat(c.getDevices(0).getHostPath()).isEqualTo("/dev/infiniband/uverbs0");
        assertThat(c.getDevices(0).getPermissions()).isEqualTo("rw");
        assertThat(c.getAnnotationsMap()).containsEntry("cdi.k8s.io/rdmanode.io_hca", "rdmanode.io/hca=hca_a");
        assertThat(c.getCdiDevices(0).getName()).isEqualTo("rdmanode.io/hca=hca_a");
        ContainerAllocation ours = new ContainerAllocation(Map.of("RDMA_POOL", "hca_a"),
                List.of(new Mount("/etc/x", "/etc/x", true)),
                List.of(new DeviceNode("/dev/infiniband/uverbs0", "/dev/infiniband/uverbs0", "rw")),
                Map.of("cdi.k8s.io/rdmanode.io_hca", "rdmanode.io/hca=hca_a"), List.of("rdmanode.io/hca=hca_a"));
        assertEncodesTo(AllocateResponse.newBuilder().addContainerResponses(ProtoMapping.allocation(ours)).build(),
                "allocate-response");
    }

    @Test
    void decodesPreferredAllocationAndPreStart() throws IOException {
        var request = PreferredAllocationRequest.parseFrom(fixture("preferred-allocation-request")).getContainerRequests(0);
        var response = PreferredAllocationResponse.parseFrom(fixture("preferred-allocation-response"));

        assertThat(request.getAvailableDeviceIDsList()).containsExactly("a", "b", "c");
        assertThat(request.getMustIncludeDeviceIDsList()).containsExactly("b");
        assertThat(request.getAllocationSize()).isEqualTo(2);
        assertThat(response.getContainerResponses(0).getDeviceIDsList()).containsExactly("b", "a");
        assertEncodesTo(PreferredAllocationResponse.newBuilder().addContainerResponses(
                ContainerPreferredAllocationResponse.newBuilder().addDeviceIDs("b").addDeviceIDs("a")).build(),
                "preferred-allocation-response");
        assertThat(PreStartContainerRequest.parseFrom(fixture("pre-start-container-request")).getDevicesIdsList())
                .containsExactly("hca_a-3");
    }

    @Test
    void decodesPluginWatcherMessages() throws IOException {
        var info = io.rdmanode.kubelet.internal.pluginregistration.PluginInfo.parseFrom(fixture("plugin-info"));
        var status = io.rdmanode.kubelet.internal.pluginregistration.RegistrationStatus
                .parseFrom(fixture("registration-status"));

        assertThat(info.getType()).isEqualTo(PluginWatcherService.DEVICE_PLUGIN_TYPE);
        assertThat(info.getName()).isEqualTo("rdma/hca_a");
        assertThat(info.getEndpoint()).isEqualTo("/var/lib/kubelet/plugins_registry/rdma-node-agent.rdma_hca_a.sock");
        assertThat(info.getSupportedVersionsList()).containsExactly("v1beta1");
        assertThat(status.getPluginRegistered()).isFalse();
        assertThat(status.getError()).isEqualTo("bad name");
        assertThat(io.rdmanode.kubelet.internal.pluginregistration.RegistrationGrpc.getGetInfoMethod()
                .getFullMethodName()).isEqualTo("pluginregistration.Registration/GetInfo");
        assertThat(io.rdmanode.kubelet.internal.pluginregistration.RegistrationGrpc
                .getNotifyRegistrationStatusMethod().getFullMethodName())
                .isEqualTo("pluginregistration.Registration/NotifyRegistrationStatus");
    }

    @Test
    void serviceAndMethodNamesMatchKubelet() {
        assertThat(io.rdmanode.kubelet.internal.v1beta1.RegistrationGrpc.getRegisterMethod().getFullMethodName())
                .isEqualTo("v1beta1.Registration/Register");
        var plugin = io.rdmanode.kubelet.internal.v1beta1.DevicePluginGrpc.class;
        assertThat(io.rdmanode.kubelet.internal.v1beta1.DevicePluginGrpc.getListAndWatchMethod().getFullMethodName())
                .isEqualTo("v1beta1.DevicePlugin/ListAndWatch");
        assertThat(io.rdmanode.kubelet.internal.v1beta1.DevicePluginGrpc.getAllocateMethod().getFullMethodName())
                .isEqualTo("v1beta1.DevicePlugin/Allocate");
        assertThat(io.rdmanode.kubelet.internal.v1beta1.DevicePluginGrpc.getGetPreferredAllocationMethod()
                .getFullMethodName()).isEqualTo("v1beta1.DevicePlugin/GetPreferredAllocation");
        assertThat(io.rdmanode.kubelet.internal.v1beta1.DevicePluginGrpc.getPreStartContainerMethod()
                .getFullMethodName()).isEqualTo("v1beta1.DevicePlugin/PreStartContainer");
        assertThat(plugin).isNotNull();
        assertThat(ByteString.EMPTY.size()).isZero();
    }
}
