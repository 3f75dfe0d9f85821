// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Wc;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.osgi.util.converter.Converters;

/**
 * The component through its real control socket: a tuning edit (limits, poller, control threads, reap interval)
 * changes nothing a connected client holds, and the socket stays the same file; a new socket path restarts.
 */
class FreeflowComponentTest {
    static final int ACCESS_ALL = 1 | 2 | 4;
    Path dir;
    Path shm;
    Map<String, Object> props;
    FreeflowComponent component;

    @BeforeEach
    void given_a_running_component() throws IOException {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of("/tmp");
        dir = Files.createTempDirectory(base, "ffc");
        shm = Files.createDirectory(dir.resolve("shm"));
        props = new HashMap<>();
        props.put("socketDir", dir.toString());
        props.put("routerName", "ffrouter");
        props.put("shmDir", shm.toString());
        component = new FreeflowComponent(config());
    }

    @AfterEach
    void close() throws IOException {
        component.stop();
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    FreeflowComponent.Config config() {
        return Converters.standardConverter().convert(props).to(FreeflowComponent.Config.class);
    }

    /** registerService answers null, as a framework without the Prometheus client would leave metrics unset. */

    Object inode(Path p) throws IOException {
        return Files.getAttribute(p, "unix:ino");
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> status() {
        return (Map<String, Object>) component.status();
    }

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> tenants() {
        return (List<Map<String, Object>>) status().get("tenants");
    }

    @Test
    @SuppressWarnings("unchecked")
    void a_tuning_edit_keeps_the_socket_and_every_object_of_a_connected_client() throws Exception {
        Path socket = dir.resolve("ffrouter");
        Object ino = inode(socket);
        FfClient c = new FfClient(socket, shm, 7);
        int pd = c.allocPd();
        Cq cqA = c.createCq(64);
        Cq cqB = c.createCq(64);
        Qp a = c.createQp(pd, cqA, cqA, 32, 4);
        Qp b = c.createQp(pd, cqB, cqB, 32, 4);
        Mr mrA = c.regMr(pd, 1 << 20, ACCESS_ALL);
        Mr mrB = c.regMr(pd, 1 << 20, ACCESS_ALL);
        c.connect(a, b.qpn(), ACCESS_ALL, 1, 7);
        c.connect(b, a.qpn(), ACCESS_ALL, 1, 7);
        List<Map<String, Object>> before = tenants();
        assertThat(before).singleElement().satisfies(t -> assertThat(t).containsEntry("qps", 2).containsEntry("mrs", 2));

        props.put("pollerSpins", 10);
        props.put("pollerSpinWaits", 100);
        props.put("pollerYields", 3);
        props.put("pollerParkMaxMicros", 500L);
        props.put("controlThreads", 4);
        props.put("reapInterval", 50L);
        props.put("maxQpsPerTenant", 2);
        props.put("maxCompletionsPerPoll", 0);
        props.put("maxConnectionsPerTenant", 16);
        props.put("idleTimeout", 2_000L);
        props.put("maxChannelsPerTenant", 3);
        props.put("maxShmBytesPerTenant", 1L << 30);
        component.modified(config());

        assertThat(inode(socket)).isEqualTo(ino);
        Map<String, Object> status = status();
        assertThat(status).containsEntry("controlThreads", 4).containsEntry("reapIntervalMillis", 50L)
                .containsEntry("maxCompletionsPerPoll", 0).containsEntry("transport", "software")
                .doesNotContainKey("device");
        assertThat((Map<String, Object>) status.get("poller")).containsEntry("spins", 10).containsEntry("spinWaits", 100)
                .containsEntry("yields", 3).containsEntry("parkMaxMicros", 500L);
        assertThat((Map<String, Object>) status.get("control")).containsEntry("maxConnectionsPerTenant", 16)
                .containsEntry("idleTimeoutMillis", 2_000L);
        assertThat((Map<String, Object>) status.get("limitsPerTenant")).containsEntry("maxChannels", 3)
                .containsEntry("maxShmBytes", 1L << 30);
        assertThat(tenants()).singleElement().satisfies(t -> assertThat(t).containsEntry("pid", before.get(0).get("pid"))
                .containsEntry("qps", 2).containsEntry("cqs", 2).containsEntry("mrs", 2));
        // The QPs created before the edit still move data, over the same mailboxes and MR files.
        mrA.buf().put(0, "kept across the edit".getBytes());
        assertThat(c.postRecv(b, 11, new Sg(4096, 64, mrB.lkey()))).containsExactly(0, 0);
        assertThat(c.postSend(a, List.of(new Wr(21, 2, 2, 0, 0, 0, new Sg(0, 20, mrA.lkey()))))).containsExactly(0, 0);
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(0);
        assertThat(c.await(cqB, 1)).extracting(Wc::status, Wc::byteLen).containsExactly(
                org.assertj.core.groups.Tuple.tuple(0, 20));
        byte[] got = new byte[20];
        mrB.buf().get(4096, got);
        assertThat(new String(got)).isEqualTo("kept across the edit");
        // The new limit holds for new objects: a third QP is refused.
        assertThat(c.createQp(pd, cqA, cqA, 32, 4)).isNull();
    }

    @Test
    void a_missing_shm_dir_is_made_so_the_first_cq_does_not_fail_with_enomem() throws Exception {
        Path missing = dir.resolve("state/freeflow/shm");
        props.put("shmDir", missing.toString());
        component.modified(config());

        FfClient c = new FfClient(dir.resolve("ffrouter"), missing, 7);
        c.allocPd();
        assertThat(c.createCq(16)).as("before, a zeroed answer: ENOMEM at DEBUG only").isNotNull();
        assertThat(missing).isDirectory();
    }

    @Test
    void a_new_socket_path_restarts_the_router_and_ends_the_clients_objects() throws Exception {
        Path socket = dir.resolve("ffrouter");
        FfClient c = new FfClient(socket, shm, 7);
        int pd = c.allocPd();
        c.regMr(pd, 4096, ACCESS_ALL);
        assertThat(tenants()).hasSize(1);

        props.put("routerName", "ffrouter2");
        component.modified(config());

        assertThat(socket).doesNotExist();
        assertThat(dir.resolve("ffrouter2")).exists();
        assertThat(tenants()).isEmpty();
        assertThat(new FfClient(dir.resolve("ffrouter2"), shm, 7).allocPd()).isPositive();
    }

    /**
     * freeflow.hosts on: a client's REG_MR_MAPPING reaches the listed host's router over UDP with this router's own
     * address of the MR's pages; a host list edit applies in place; a host that is not an IP is refused by the
     * same check live reload runs.
     */
    @Test
    @SuppressWarnings("unchecked")
    void a_client_mr_mapping_is_announced_to_the_listed_hosts_and_the_host_list_is_live() throws Exception {
        java.net.InetAddress self = java.net.InetAddress.getByName("127.0.0.5");
        java.net.InetAddress peerAddress = java.net.InetAddress.getByName("127.0.0.6");
        int port;
        try (java.net.DatagramSocket probe = new java.net.DatagramSocket(new java.net.InetSocketAddress(self, 0))) {
            port = probe.getLocalPort();
        }
        try (io.rdmanode.freeflow.internal.mapping.MrMappingService peer =
                     io.rdmanode.freeflow.internal.mapping.MrMappingService.start(
                             new io.rdmanode.freeflow.internal.mapping.MappingSettings(List.of(self), port, peerAddress,
                                     100, 3))) {
            props.put("hosts", new String[] {"127.0.0.6"});
            props.put("mappingPort", port);
            props.put("mappingBind", "127.0.0.5");
            component.modified(config());

            FfClient c = new FfClient(dir.resolve("ffrouter"), shm, 9);
            int pd = c.allocPd();
            Mr mr = c.regMr(pd, 1 << 16, ACCESS_ALL);
            assertThat(c.regMrMapping(mr.lkey(), 0x7f1234560000L)).isZero();

            var announced = peer.table().get(mr.lkey()).orElseThrow();
            assertThat(announced.host()).isEqualTo(self);
            assertThat(announced.mrPtr()).isEqualTo(0x7f1234560000L);
            assertThat(announced.shmPtr()).isNotZero();                       // where this router maps the MR
            Map<String, Object> mapping = (Map<String, Object>) status().get("mrMapping");
            assertThat(mapping).containsEntry("hosts", List.of("127.0.0.6")).containsEntry("announced", 1L)
                    .containsEntry("unacknowledged", 0L);

            props.put("hosts", new String[] {});
            component.modified(config());
            assertThat(status()).doesNotContainKey("mrMapping");
            assertThat(c.regMrMapping(mr.lkey(), 0x7f1234560000L)).isZero();  // no hosts: recorded locally only

            props.put("hosts", new String[] {"peer.example"});
            io.rdmanode.agent.ConfigValidator.Proposal proposal = new io.rdmanode.agent.ConfigValidator.Proposal() {
                @Override
                public Map<String, Map<String, Object>> configurations() {
                    return Map.of(FreeflowComponent.PID, props);
                }

                @Override
                public <T> java.util.Optional<T> service(Class<T> type) {
                    return java.util.Optional.empty();
                }
            };
            assertThat(new FreeflowConfigCheck().validate(proposal)).singleElement().satisfies(r -> {
                assertThat(r.property()).isEqualTo("hosts");
                assertThat(r.message()).contains("'peer.example' is not an IP address");
            });
        }
    }
}
