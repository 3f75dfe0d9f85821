// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import io.rdmanode.dra.internal.v1.DRAPluginGrpc;
import io.rdmanode.dra.internal.v1.NodePrepareResourcesRequest;
import io.rdmanode.dra.internal.v1.NodePrepareResourcesResponse;
import io.rdmanode.kubelet.testing.UnixSockets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Registration with a kubelet double through real Unix sockets, and the DRA service behind it. */
class DraRegistrationTest {

    private static final String DRIVER = DraSettings.DEFAULT_DRIVER;

    private Path root;
    private DraSettings settings;
    private UnixSockets.Servers servers;
    private RegistrationService registration;
    private DraSockets sockets;
    private KubeletDouble kubelet;
    private final List<String> calls = new CopyOnWriteArrayList<>();

    /** Answers every claim with one device named after it; records the calls. */
    private final ClaimPreparation preparation = new ClaimPreparation() {
        @Override
        public PrepareOutcome prepare(ClaimRef claim) {
            calls.add("prepare " + claim.uid());
            return PrepareOutcome.prepared(List.of(new PreparedDevice(List.of("nic"), "pool-a", "pci-0000-3b-00-2",
                    List.of(DRIVER + "/claim=" + claim.uid()), "0000:3b:00.2", "mlx5_2")));
        }

        @Override
        public Optional<String> unprepare(ClaimRef claim) {
            calls.add("unprepare " + claim.uid());
            return Optional.empty();
        }
    };

    @BeforeEach
    void start() throws Exception {
        // Short paths under /tmp: sun_path holds 107 bytes whatever the checkout depth.
        root = Files.createTempDirectory(Path.of("/tmp"), "dra-");
        settings = new DraSettings(DRIVER, root.resolve("plugins"), root.resolve("plugins_registry"),
                root.resolve("cdi"), root.resolve("state"), Path.of("/dev"));
        Files.createDirectories(settings.registryDir());
        servers = new UnixSockets.Servers();
        registration = new RegistrationService(DRIVER, settings.draSocket());
        DraPluginService dra = new DraPluginService(preparation);
        sockets = new DraSockets(servers, settings, List.of(dra, dra.v1beta1()), registration, 20);
        kubelet = new KubeletDouble(settings.registryDir());
    }

    @AfterEach
    void stop() throws Exception {
        kubelet.close();
        sockets.close();
        servers.stop();
        TestFiles.deleteTree(root);
    }

    @Test
    void kubeletRegistersTheDriverWithV1AndTheDraSocket() throws Exception {
        await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.registered(DRIVER).isPresent());
        KubeletDouble.Registered r = kubelet.registered(DRIVER).get();
        assertThat(r.info().getType()).isEqualTo("DRAPlugin");
        assertThat(r.info().getEndpoint()).isEqualTo(root.resolve("plugins/" + DRIVER + "/dra.sock").toString());
        assertThat(r.info().getSupportedVersionsList()).containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin");
        assertThat(r.version()).isEqualTo("v1.DRAPlugin");
        assertThat(r.socket()).isEqualTo(root.resolve("plugins_registry/" + DRIVER + "-reg.sock"));
        assertThat(kubelet.refusals()).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> registration.lastStatus().isPresent());
        assertThat(registration.lastStatus().get().registered()).isTrue();
        for (Path s : List.of(settings.draSocket(), settings.registrationSocket())) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(s))).isEqualTo("rw-------");
        }
    }

    @Test
    void prepareAndUnprepareReachTheDriverKeyedByClaimUid() {
        await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.registered(DRIVER).isPresent());
        var prepared = kubelet.prepare(DRIVER, KubeletDouble.claim("ns", "pod-nic-x1", "uid-1"),
                KubeletDouble.claim("ns", "pod-nic-x2", "uid-2"));
        assertThat(prepared.getClaimsMap()).containsOnlyKeys("uid-1", "uid-2");
        var one = prepared.getClaimsOrThrow("uid-1");
        assertThat(one.getError()).isEmpty();
        assertThat(one.getDevices(0).getDeviceName()).isEqualTo("pci-0000-3b-00-2");
        assertThat(one.getDevices(0).getPoolName()).isEqualTo("pool-a");
        assertThat(one.getDevices(0).getRequestNamesList()).containsExactly("nic");
        assertThat(one.getDevices(0).getCdiDeviceIdsList()).containsExactly(DRIVER + "/claim=uid-1");
        assertThat(one.getDevices(0).hasShareId()).isFalse();

        var unprepared = kubelet.unprepare(DRIVER, KubeletDouble.claim("ns", "pod-nic-x1", "uid-1"));
        assertThat(unprepared.getClaimsOrThrow("uid-1").getError()).isEmpty();
        assertThat(calls).contains("prepare uid-1", "prepare uid-2", "unprepare uid-1");
    }

    @Test
    void theV1beta1ServiceNameAnswersTheSame() {
        await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.registered(DRIVER).isPresent());
        MethodDescriptor<NodePrepareResourcesRequest, NodePrepareResourcesResponse> v1beta1 =
                DRAPluginGrpc.getNodePrepareResourcesMethod().toBuilder()
                        .setFullMethodName("k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodePrepareResources")
                        .build();
        ManagedChannel ch = kubelet.dial(settings.draSocket());
        try {
            NodePrepareResourcesResponse answer = ClientCalls.blockingUnaryCall(ch, v1beta1,
                    CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), NodePrepareResourcesRequest
                            .newBuilder().addClaims(KubeletDouble.claim("ns", "c", "uid-b")).build());
            assertThat(answer.getClaimsOrThrow("uid-b").getDevices(0).getDeviceName()).isEqualTo("pci-0000-3b-00-2");
        } finally {
            ch.shutdownNow();
        }
    }

    @Test
    void vanishedSocketsAreServedAgainAndKubeletRegistersAgain() throws Exception {
        await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.registered(DRIVER).isPresent());
        Files.delete(settings.registrationSocket());
        Files.delete(settings.draSocket());
        // Between the two deletions the driver may serve a registration socket whose endpoint is gone: kubelet
        // refuses that one and retries; what counts is that it ends up registered on fresh sockets.
        await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.history().size() >= 2
                && kubelet.registered(DRIVER).isPresent());
        assertThat(kubelet.prepare(DRIVER, KubeletDouble.claim("ns", "c", "uid-3")).getClaimsOrThrow("uid-3")
                .getError()).isEmpty();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(settings.draSocket())))
                .isEqualTo("rw-------");
    }

    @Test
    void aRestartedKubeletRegistersTheDriverAgainOnTheSameSockets() {
        await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.registered(DRIVER).isPresent());
        kubelet.restart();
        await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.history().size() >= 2);
        assertThat(kubelet.registered(DRIVER)).isPresent();
        assertThat(kubelet.prepare(DRIVER, KubeletDouble.claim("ns", "c", "uid-4")).getClaimsOrThrow("uid-4")
                .getError()).isEmpty();
    }

    /**
     * A handover or a DaemonSet surge (kubelet's rolling update of a DRA driver): a second instance with sockets of
     * its own registers beside the first and kubelet calls it; the first withdrawing its sockets leaves the
     * driver registered; a socket an instance left when it was killed (nobody listens) is removed when the next
     * one starts, a live instance's is not.
     */
    @Test
    void aSecondInstanceRegistersBesideTheFirstAndTheFirstGoingLeavesTheDriverRegistered() throws Exception {
        sockets.close();                                      // this class's fixed-name instance is not used here
        DraSettings first = settings.withInstance("a1");
        DraSettings second = settings.withInstance("b2");
        DraPluginService dra = new DraPluginService(preparation);
        RegistrationService firstRegistration = new RegistrationService(DRIVER, first.draSocket());
        try (DraSockets a = new DraSockets(servers, first, List.of(dra, dra.v1beta1()), firstRegistration, 20)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.registered(DRIVER)
                    .map(r -> r.socket().equals(first.registrationSocket())).orElse(false));
            // An instance killed earlier left its sockets: files nobody listens on.
            DraSettings dead = settings.withInstance("c3");
            Files.createDirectories(dead.draSocket().getParent());
            for (Path f : List.of(dead.registrationSocket(), dead.draSocket())) {
                try (java.nio.channels.ServerSocketChannel s = java.nio.channels.ServerSocketChannel.open(
                        java.net.StandardProtocolFamily.UNIX)) {
                    s.bind(java.net.UnixDomainSocketAddress.of(f));
                }
            }
            Path foreign = settings.registryDir().resolve("other.example.com-reg.sock");
            Files.createFile(foreign);

            try (DraSockets b = new DraSockets(servers, second, List.of(dra, dra.v1beta1()),
                    new RegistrationService(DRIVER, second.draSocket()), 20)) {
                assertThat(dead.registrationSocket()).doesNotExist();
                assertThat(dead.draSocket()).doesNotExist();
                assertThat(first.registrationSocket()).exists();      // a live instance's: kept
                assertThat(foreign).exists();                         // another driver's: not ours to judge
                await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.instances(DRIVER).size() == 2);
                assertThat(kubelet.registered(DRIVER).get().info().getEndpoint())
                        .isEqualTo(second.draSocket().toString());

                a.close();

                await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.instances(DRIVER).size() == 1);
                assertThat(kubelet.registered(DRIVER).get().socket()).isEqualTo(second.registrationSocket());
                assertThat(kubelet.prepare(DRIVER, KubeletDouble.claim("ns", "c", "uid-r")).getClaimsOrThrow("uid-r")
                        .getError()).isEmpty();
            }
        }
    }
    /**
     * A successor that registered beside this instance and was killed before it was ready leaves its sockets, and
     * kubelet keeps its registration (the newest) until they go: this instance removes them when the handover tells
     * it the successor was lost, and kubelet calls this instance again.
     */
    @Test
    void theSocketsOfASuccessorKilledBeforeItWasReadyGoAndKubeletCallsThisInstanceAgain() throws Exception {
        sockets.close();
        DraSettings own = settings.withInstance("a1");
        DraSettings successor = settings.withInstance("b2");
        DraPluginService dra = new DraPluginService(preparation);
        try (DraSockets a = new DraSockets(servers, own, List.of(dra, dra.v1beta1()),
                new RegistrationService(DRIVER, own.draSocket()), 20)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.registered(DRIVER)
                    .map(r -> r.socket().equals(own.registrationSocket())).orElse(false));
            // What a SIGKILL leaves: the successor's socket files, nobody listening on them.
            Files.createDirectories(successor.draSocket().getParent());
            for (Path f : List.of(successor.registrationSocket(), successor.draSocket())) {
                try (java.nio.channels.ServerSocketChannel s = java.nio.channels.ServerSocketChannel.open(
                        java.net.StandardProtocolFamily.UNIX)) {
                    s.bind(java.net.UnixDomainSocketAddress.of(f));
                }
            }

            a.successorLost();

            assertThat(successor.registrationSocket()).doesNotExist();
            assertThat(successor.draSocket()).doesNotExist();
            assertThat(own.registrationSocket()).exists();
            assertThat(own.draSocket()).exists();
            assertThat(kubelet.registered(DRIVER).get().socket()).isEqualTo(own.registrationSocket());
            assertThat(kubelet.prepare(DRIVER, KubeletDouble.claim("ns", "c", "uid-l")).getClaimsOrThrow("uid-l")
                    .getError()).isEmpty();
        }
    }
}
