// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.stub.StreamObserver;
import io.rdmanode.kubelet.internal.pluginregistration.InfoRequest;
import io.rdmanode.kubelet.internal.pluginregistration.PluginInfo;
import io.rdmanode.kubelet.internal.pluginregistration.RegistrationGrpc;
import io.rdmanode.kubelet.internal.pluginregistration.RegistrationStatus;
import io.rdmanode.kubelet.internal.pluginregistration.RegistrationStatusResponse;
import java.nio.file.Path;
import java.util.function.BiConsumer;

/**
 * Answers kubelet's plugin watcher ({@code pluginregistration.Registration}, protocol-facts §1.5) on the
 * plugin's own socket: the socket is both the registration and the device-plugin endpoint.
 */
final class PluginWatcherService extends RegistrationGrpc.RegistrationImplBase {

    static final String DEVICE_PLUGIN_TYPE = "DevicePlugin";

    private final String resource;
    private final Path socket;
    private final Runnable onGetInfo;
    private final BiConsumer<Boolean, String> onStatus;

    /**
     * @param onGetInfo called on every GetInfo: proof that a kubelet watches the directory
     * @param onStatus  called with kubelet's verdict: registered, and the error when not
     */
    PluginWatcherService(String resource, Path socket, Runnable onGetInfo, BiConsumer<Boolean, String> onStatus) {
        this.resource = resource;
        this.socket = socket;
        this.onGetInfo = onGetInfo;
        this.onStatus = onStatus;
    }

    @Override
    public void getInfo(InfoRequest request, StreamObserver<PluginInfo> out) {
        onGetInfo.run();
        out.onNext(PluginInfo.newBuilder().setType(DEVICE_PLUGIN_TYPE).setName(resource)
                .setEndpoint(socket.toString()).addSupportedVersions(DevicePluginServer.API_VERSION).build());
        out.onCompleted();
    }

    @Override
    public void notifyRegistrationStatus(RegistrationStatus status, StreamObserver<RegistrationStatusResponse> out) {
        onStatus.accept(status.getPluginRegistered(), status.getError());
        out.onNext(RegistrationStatusResponse.getDefaultInstance());
        out.onCompleted();
    }
}
