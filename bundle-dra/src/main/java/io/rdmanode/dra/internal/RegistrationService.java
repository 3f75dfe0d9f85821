// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.grpc.stub.StreamObserver;
import io.rdmanode.dra.internal.pluginregistration.InfoRequest;
import io.rdmanode.dra.internal.pluginregistration.PluginInfo;
import io.rdmanode.dra.internal.pluginregistration.RegistrationGrpc;
import io.rdmanode.dra.internal.pluginregistration.RegistrationStatus;
import io.rdmanode.dra.internal.pluginregistration.RegistrationStatusResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin-watcher {@code pluginregistration.Registration} service of the DRA driver: kubelet finds the socket,
 * asks {@code GetInfo} (type {@code DRAPlugin}, the driver name, the DRA socket, the versions served in order of
 * preference: kubelet takes the first it knows), then tells the outcome with {@code NotifyRegistrationStatus},
 * which is logged and kept for {@code /status}.
 */
final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {

    static final String TYPE = "DRAPlugin";
    /** v1 first: kubelet 1.34+ knows it; v1beta1 for 1.32/1.33 (same messages, served under its own name). */
    static final List<String> VERSIONS = List.of("v1.DRAPlugin", "v1beta1.DRAPlugin");

    private static final Logger LOG = LoggerFactory.getLogger(RegistrationService.class);

    /** kubelet's last word on the registration. */
    record Status(boolean registered, String error, Instant at) { }

    private final String driverName;
    private final Path endpoint;
    private final Runnable onRegistered;
    private volatile Status last;

    RegistrationService(String driverName, Path endpoint) {
        this(driverName, endpoint, () -> { });
    }

    /**
     * @param onRegistered runs after each successful registration: kubelet deletes the node's ResourceSlices when
     *                     it starts, so a registration is the moment to publish them again
     */
    RegistrationService(String driverName, Path endpoint, Runnable onRegistered) {
        this.driverName = driverName;
        this.endpoint = endpoint;
        this.onRegistered = onRegistered;
    }

    @Override
    public void getInfo(InfoRequest request, StreamObserver<PluginInfo> answer) {
        answer.onNext(PluginInfo.newBuilder().setType(TYPE).setName(driverName).setEndpoint(endpoint.toString())
                .addAllSupportedVersions(VERSIONS).build());
        answer.onCompleted();
    }

    @Override
    public void notifyRegistrationStatus(RegistrationStatus status, StreamObserver<RegistrationStatusResponse> answer) {
        last = new Status(status.getPluginRegistered(), status.getError(), Instant.now());
        if (status.getPluginRegistered()) {
            LOG.info("kubelet registered DRA driver {} at {}", driverName, endpoint);
            onRegistered.run();
        } else {
            LOG.warn("kubelet refused DRA driver {}: {}", driverName, status.getError());
        }
        answer.onNext(RegistrationStatusResponse.getDefaultInstance());
        answer.onCompleted();
    }

    /** Empty until kubelet has answered once. */
    Optional<Status> lastStatus() {
        return Optional.ofNullable(last);
    }
}
