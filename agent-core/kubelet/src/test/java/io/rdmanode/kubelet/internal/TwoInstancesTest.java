// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.kubelet.Device;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two agent instances on one device-plugins directory, as a surge upgrade or a successor taking over runs them
 * (issue 27): each serves and registers its own sockets, kubelet serves every resource from the newest, and the
 * one that stops removes only its own.
 */
class TwoInstancesTest {

    private static final List<String> RESOURCES = List.of("rdma/hca_a", "intel.com/sriov_rdma_with_a_long_name");

    @TempDir
    Path dir;

    private static HostSettings classic(Path dir, FakeKubelet kubelet) {
        return new HostSettings(dir, kubelet.socket(), 2000, 2000, 60_000, 1);
    }

    private static void serveAll(KubeletDevicePluginHost host, String deviceId) {
        RESOURCES.forEach(r -> host.serve(new TestPlugin(r, List.of(new Device(deviceId, true, List.of())))));
    }

    @Test
    void theSuccessorRegistersItsOwnSocketsAndStoppingThePredecessorLeavesThem() throws IOException {
        try (FakeKubelet kubelet = new FakeKubelet(dir).start()) {
            KubeletDevicePluginHost predecessor = new KubeletDevicePluginHost(classic(dir, kubelet));
            try (predecessor) {
                serveAll(predecessor, "old-0");
                RESOURCES.forEach(r -> kubelet.awaitRegistrations(r, 1, Duration.ofSeconds(5)));
                List<Path> oldSockets = RESOURCES.stream().map(r -> predecessor.socketOf(r).orElseThrow()).toList();

                try (KubeletDevicePluginHost successor = new KubeletDevicePluginHost(classic(dir, kubelet))) {
                    // The successor's start-up clean-up leaves the predecessor's live sockets.
                    assertThat(oldSockets).allSatisfy(p -> assertThat(p).exists());
                    serveAll(successor, "new-0");
                    for (String r : RESOURCES) {
                        Path own = successor.socketOf(r).orElseThrow();
                        assertThat(own).isNotIn(oldSockets);
                        assertThat(own.toString().length()).isLessThanOrEqualTo(ResourceNames.SUN_PATH_MAX);
                        assertThat(kubelet.awaitRegistrations(r, 2, Duration.ofSeconds(5)).endpoint())
                                .isEqualTo(own.getFileName().toString());
                        assertThat(kubelet.plugin(r).latest(Duration.ofSeconds(5)).getDevices(0).getID())
                                .isEqualTo("new-0");
                    }
                    assertThat(oldSockets).allSatisfy(p -> assertThat(p).exists());

                    predecessor.close();                 // SIGTERM of the old instance

                    assertThat(oldSockets).allSatisfy(p -> assertThat(p).doesNotExist());
                    for (String r : RESOURCES) {
                        assertThat(successor.socketOf(r).orElseThrow()).exists();
                        assertThat(kubelet.plugin(r).allocate(List.of("new-0")).getContainerResponsesCount())
                                .isEqualTo(1);
                    }
                    // Replaced, the predecessor did not register again (no ping-pong between the instances).
                    Awaitility.await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(3))
                            .until(() -> RESOURCES.stream().allMatch(r -> kubelet.registrations(r) == 2));
                }
            }
        }
    }

    /**
     * A kubelet before 1.35 (kubernetes#121994) also closes the newest endpoint when the replaced one disconnects
     * afterwards: the newest instance then registers again, so the resource keeps an endpoint.
     */
    @Test
    void theNewestInstanceRegistersAgainWhenKubeletDropsItsStream() throws IOException {
        try (FakeKubelet kubelet = new FakeKubelet(dir).start();
             KubeletDevicePluginHost predecessor = new KubeletDevicePluginHost(classic(dir, kubelet));
             KubeletDevicePluginHost successor = new KubeletDevicePluginHost(classic(dir, kubelet))) {
            predecessor.serve(new TestPlugin("rdma/hca_a", List.of(new Device("old-0", true, List.of()))));
            kubelet.awaitRegistrations("rdma/hca_a", 1, Duration.ofSeconds(5));
            successor.serve(new TestPlugin("rdma/hca_a", List.of(new Device("new-0", true, List.of()))));
            kubelet.awaitRegistrations("rdma/hca_a", 2, Duration.ofSeconds(5));

            kubelet.plugin("rdma/hca_a").latest(Duration.ofSeconds(5));   // the stream is open
            kubelet.plugin("rdma/hca_a").channel().shutdownNow();      // the buggy disconnect

            String endpoint = kubelet.awaitRegistrations("rdma/hca_a", 3, Duration.ofSeconds(5)).endpoint();
            assertThat(endpoint).isEqualTo(successor.socketOf("rdma/hca_a").orElseThrow().getFileName().toString());
            assertThat(kubelet.plugin("rdma/hca_a").latest(Duration.ofSeconds(5)).getDevices(0).getID())
                    .isEqualTo("new-0");
        }
    }

    /**
     * After a kubelet restart during the handover (every socket deleted, a new kubelet.sock), only the successor
     * serves and registers again: the predecessor that handed over, or is simply older, does not take the
     * resource back.
     */
    @Test
    void aKubeletRestartDuringTheHandoverLeavesEveryResourceWithTheSuccessor() throws IOException {
        try (FakeKubelet kubelet = new FakeKubelet(dir).start();
             KubeletDevicePluginHost predecessor = new KubeletDevicePluginHost(classic(dir, kubelet));
             KubeletDevicePluginHost surgeOld = new KubeletDevicePluginHost(classic(dir, kubelet))) {
            predecessor.serve(new TestPlugin("rdma/hca_a", List.of(new Device("old-0", true, List.of()))));
            surgeOld.serve(new TestPlugin("rdma/hca_b", List.of(new Device("old-0", true, List.of()))));
            kubelet.awaitRegistrations("rdma/hca_a", 1, Duration.ofSeconds(5));
            kubelet.awaitRegistrations("rdma/hca_b", 1, Duration.ofSeconds(5));
            try (KubeletDevicePluginHost successor = new KubeletDevicePluginHost(classic(dir, kubelet))) {
                for (String r : List.of("rdma/hca_a", "rdma/hca_b")) {
                    successor.serve(new TestPlugin(r, List.of(new Device("new-0", true, List.of()))));
                }
                kubelet.awaitRegistrations("rdma/hca_a", 2, Duration.ofSeconds(5));
                kubelet.awaitRegistrations("rdma/hca_b", 2, Duration.ofSeconds(5));
                predecessor.handedOver();                // surgeOld was never told: only the newer socket says it

                kubelet.restart();

                // Every resource ends with the successor, for good.
                for (String r : List.of("rdma/hca_a", "rdma/hca_b")) {
                    String own = successor.socketOf(r).orElseThrow().getFileName().toString();
                    Awaitility.await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(30)).until(() -> {
                        List<FakeKubelet.Registration> all = kubelet.registrations().stream()
                                .filter(g -> g.resource().equals(r)).toList();
                        return all.size() > 2 && all.get(all.size() - 1).endpoint().equals(own);
                    });
                    assertThat(kubelet.plugin(r).latest(Duration.ofSeconds(5)).getDevices(0).getID())
                            .isEqualTo("new-0");
                }
                // The instance that handed over never registered again. (One that was not told can, in the instant
                // before the successor serves again after the restart; the successor then registers once more.)
                String handedOver = predecessor.socketOf("rdma/hca_a").orElseThrow().getFileName().toString();
                assertThat(kubelet.registrations().stream().filter(g -> g.resource().equals("rdma/hca_a")).skip(2))
                        .extracting(FakeKubelet.Registration::endpoint).doesNotContain(handedOver);
            }
        }
    }

    /**
     * An older instance that saw a newer one leaves it the resource after a kubelet restart only while it may
     * still serve again: with the newer one gone, the older registers after the grace, so the resource keeps an
     * endpoint.
     */
    @Test
    void anOlderInstanceRegistersAfterAKubeletRestartWhenTheNewerOneIsGone() throws IOException {
        try (FakeKubelet kubelet = new FakeKubelet(dir).start();
             KubeletDevicePluginHost older = new KubeletDevicePluginHost(classic(dir, kubelet))) {
            older.serve(new TestPlugin("rdma/hca_a", List.of(new Device("old-0", true, List.of()))));
            kubelet.awaitRegistrations("rdma/hca_a", 1, Duration.ofSeconds(5));
            try (KubeletDevicePluginHost newer = new KubeletDevicePluginHost(classic(dir, kubelet))) {
                newer.serve(new TestPlugin("rdma/hca_a", List.of(new Device("new-0", true, List.of()))));
                kubelet.awaitRegistrations("rdma/hca_a", 2, Duration.ofSeconds(5));
                Awaitility.await().atMost(Duration.ofSeconds(5))
                        .until(() -> older.servers().get(0).newerInstanceSeen().isPresent());
            }
            kubelet.restart();

            String own = older.socketOf("rdma/hca_a").orElseThrow().getFileName().toString();
            assertThat(kubelet.awaitRegistrations("rdma/hca_a", 3, Duration.ofSeconds(15)).endpoint()).isEqualTo(own);
            assertThat(kubelet.plugin("rdma/hca_a").latest(Duration.ofSeconds(5)).getDevices(0).getID())
                    .isEqualTo("old-0");
        }
    }

    /**
     * Which instance owns the node is decided by the handover, not by the tags taken at start: two agents started
     * at once can end with the older tag taking over from the newer one. The newer one's sockets, kept to answer
     * late calls, are marked as handed over, and the owner registers beside them, also after a kubelet restart.
     */
    @Test
    void anOwnerWithAnOlderTagRegistersBesideANewerInstanceThatHandedOverToIt() throws IOException {
        try (FakeKubelet kubelet = new FakeKubelet(dir).start();
             KubeletDevicePluginHost owner = new KubeletDevicePluginHost(classic(dir, kubelet));
             KubeletDevicePluginHost handedOver = new KubeletDevicePluginHost(classic(dir, kubelet))) {
            assertThat(InstanceTags.newer(handedOver.instance(), owner.instance())).isTrue();
            handedOver.serve(new TestPlugin("rdma/hca_a", List.of(new Device("old-0", true, List.of()))));
            kubelet.awaitRegistrations("rdma/hca_a", 1, Duration.ofSeconds(5));
            handedOver.handedOver();
            assertThat(handedOver.socketOf("rdma/hca_a").orElseThrow()).exists();   // still answers late calls

            owner.serve(new TestPlugin("rdma/hca_a", List.of(new Device("new-0", true, List.of()))));
            String own = owner.socketOf("rdma/hca_a").orElseThrow().getFileName().toString();
            assertThat(kubelet.awaitRegistrations("rdma/hca_a", 2, Duration.ofSeconds(5)).endpoint()).isEqualTo(own);

            kubelet.restart();
            assertThat(kubelet.awaitRegistrations("rdma/hca_a", 3, Duration.ofSeconds(5)).endpoint()).isEqualTo(own);
            assertThat(kubelet.plugin("rdma/hca_a").latest(Duration.ofSeconds(5)).getDevices(0).getID())
                    .isEqualTo("new-0");
        }
    }

    /**
     * Watcher mode: each instance has a registration socket of its own in plugins_registry; the watcher registers
     * the successor's, stopping the predecessor leaves it, and when kubelet drops the successor's connection (a
     * pre-1.35 plugin watcher deregisters by resource name when the predecessor's socket goes) the successor
     * serves a new socket file, which the watcher registers.
     */
    @Test
    void watcherModeGivesEachInstanceItsOwnRegistrationSocket() throws IOException {
        Path registry = java.nio.file.Files.createDirectories(dir.resolve("pr"));
        Path plugins = java.nio.file.Files.createDirectories(dir.resolve("dp"));
        HostSettings watcher = new HostSettings(plugins, plugins.resolve("kubelet.sock"), 2000, 2000, 60_000, 1,
                HostSettings.Registration.WATCHER, registry);
        try (FakePluginWatcher kubelet = new FakePluginWatcher(registry)) {
            KubeletDevicePluginHost predecessor = new KubeletDevicePluginHost(watcher);
            try (predecessor; KubeletDevicePluginHost successor = new KubeletDevicePluginHost(watcher)) {
                predecessor.serve(new TestPlugin("rdma/hca_a", List.of(new Device("old-0", true, List.of()))));
                kubelet.awaitRegistrations("rdma/hca_a", 1, Duration.ofSeconds(5));
                successor.serve(new TestPlugin("rdma/hca_a", List.of(new Device("new-0", true, List.of()))));
                Path own = successor.socketOf("rdma/hca_a").orElseThrow();
                Path old = predecessor.socketOf("rdma/hca_a").orElseThrow();
                assertThat(own.getParent()).isEqualTo(registry);
                assertThat(own).isNotEqualTo(old);
                assertThat(kubelet.awaitRegistrations("rdma/hca_a", 2, Duration.ofSeconds(5)).endpoint())
                        .isEqualTo(own.toString());

                predecessor.close();
                assertThat(old).doesNotExist();
                assertThat(own).exists();
                assertThat(kubelet.plugin("rdma/hca_a").allocate(List.of("new-0")).getContainerResponsesCount())
                        .isEqualTo(1);

                kubelet.plugin("rdma/hca_a").latest(Duration.ofSeconds(5));
                kubelet.plugin("rdma/hca_a").channel().shutdownNow();          // deregistered by name
                assertThat(kubelet.awaitRegistrations("rdma/hca_a", 3, Duration.ofSeconds(5)).endpoint())
                        .isEqualTo(own.toString());
                assertThat(kubelet.plugin("rdma/hca_a").latest(Duration.ofSeconds(5)).getDevices(0).getID())
                        .isEqualTo("new-0");
            }
        }
    }

    /** The start-up clean-up removes dead sockets of any earlier instance, never a live instance's. */
    @Test
    void staleSocketsOfEarlierInstancesGoWhileALiveInstanceKeepsItsSockets() throws IOException {
        try (FakeKubelet kubelet = new FakeKubelet(dir).start();
             KubeletDevicePluginHost live = new KubeletDevicePluginHost(classic(dir, kubelet))) {
            live.serve(new TestPlugin("rdma/hca_a", List.of(new Device("a-0", true, List.of()))));
            Path liveSocket = live.socketOf("rdma/hca_a").orElseThrow();
            Path dead = dir.resolve(ResourceNames.socketFileName("rdma/hca_a", "k0000001"));  // a killed instance's
            try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                s.bind(UnixDomainSocketAddress.of(dead));
            }

            try (KubeletDevicePluginHost next = new KubeletDevicePluginHost(classic(dir, kubelet))) {
                assertThat(dead).doesNotExist();
                assertThat(liveSocket).exists();
                assertThat(StaleSockets.answers(liveSocket)).isTrue();
            }
            assertThat(liveSocket).exists();
        }
    }
}
