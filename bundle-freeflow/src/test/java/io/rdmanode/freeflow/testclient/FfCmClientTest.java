// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.testclient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.freeflow.internal.rdmacm.UcmaCommand;
import io.rdmanode.freeflow.internal.wire.Func;
import io.rdmanode.freeflow.internal.wire.LayoutTable;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test client's CM bodies against the router's golden-tested table ({@code UcmaCommandTest}: the genuine
 * client's {@code rdma_cma_abi.h} layouts): what it writes becomes the kernel command it means, field by field. A
 * recording socket stands in for the router; the client's kept control connection carries every call.
 */
class FfCmClientTest {
    private static final HexFormat HEX = HexFormat.of();
    record Request(int func, ByteBuffer body) {
        String kernel(int from, int to) {
            return HEX.formatHex(UcmaCommand.of(func).kernelCommand(body).array(), from, to);
        }
    }

    @TempDir
    Path dir;
    private ServerSocketChannel server;
    private final List<Request> seen = new CopyOnWriteArrayList<>();
    private final List<Integer> connections = new CopyOnWriteArrayList<>();
    private Thread thread;

    @BeforeEach
    void listen() throws IOException {
        server = ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(dir.resolve("r")));
        thread = new Thread(this::serve, "fake-router");
        thread.setDaemon(true);
        thread.start();
    }

    @AfterEach
    void close() throws IOException {
        server.close();
        Files.deleteIfExists(dir.resolve("r"));
    }

    /** Answers each request with zeros of its answer's size (CREATE_ID: id 5; CREATE_EVENT_CHANNEL: ec.fd 3). */
    private void serve() {
        try {
            while (true) {
                SocketChannel c = server.accept();
                connections.add(connections.size());
                Thread t = new Thread(() -> answer(c));
                t.setDaemon(true);
                t.start();
            }
        } catch (IOException closed) {
            // the test ended
        }
    }

    private void answer(SocketChannel c) {
        try (c) {
            while (true) {
                ByteBuffer h = read(c, 12);
                int func = h.getInt(4);
                ByteBuffer body = read(c, h.getInt(8));
                seen.add(new Request(func, body));
                ByteBuffer rsp = FfClient.buf(func == Func.CM_CREATE_EVENT_CHANNEL ? 2 + 8
                        : LayoutTable.standard().func(func).response().size());
                if (func == Func.CM_CREATE_EVENT_CHANNEL) {
                    rsp.putInt(6, 3);
                } else if (func == Func.CM_CREATE_ID) {
                    rsp.putInt(4, 5);
                }
                while (rsp.hasRemaining()) {
                    c.write(rsp);
                }
            }
        } catch (IOException ended) {
            // the client closed
        }
    }

    private static ByteBuffer read(SocketChannel c, int n) throws IOException {
        ByteBuffer b = FfClient.buf(n);
        while (b.hasRemaining()) {
            if (c.read(b) < 0) {
                throw new IOException("closed");
            }
        }
        return b.clear();
    }

    @Test
    void every_cm_call_becomes_the_kernel_command_it_means_on_one_kept_connection() throws Exception {
        Inet4Address overlay = (Inet4Address) InetAddress.getByName("10.44.0.1");
        try (FfCmClient c = new FfCmClient(dir.resolve("r"), 7)) {
            assertThat(c.createEventChannel()).isEqualTo(3);
            assertThat(c.createId(3, 0x1122334455667788L)).isEqualTo(5);
            c.bind(3, 5, overlay, 7471);
            c.listen(3, 5, 4);
            c.resolveAddr(3, 5, overlay, 7471, 2000);
            c.resolveRoute(3, 5, 2000);
            c.initQpAttr(3, 5, FfCmClient.IBV_QPS_RTR);
            c.connect(3, 5, 0x11, new byte[] {(byte) 0xab, (byte) 0xcd});
            c.accept(3, 6, 0x42, 0x12, new byte[] {1});
            c.processConnResp(3, 5);
            c.disconnect(3, 5);
            c.destroyId(3, 5);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> connections.size() == 2);   // control, the channel's events
        assertThat(seen).extracting(Request::func).containsExactly(Func.CM_CREATE_EVENT_CHANNEL, Func.CM_CREATE_ID,
                Func.CM_BIND, Func.CM_LISTEN, Func.CM_RESOLVE_ADDR, Func.CM_RESOLVE_ROUTE, Func.CM_INIT_QP_ATTR,
                Func.CM_CONNECT, Func.CM_ACCEPT, Func.CM_UCMA_PROCESS_CONN_RESP, Func.CM_DISCONNECT, Func.CM_DESTROY_ID);
        assertThat(seen.get(0).body().capacity()).isZero();
        for (Request r : seen.subList(1, seen.size())) {
            assertThat(r.body().capacity()).as("body of function " + r.func())
                    .isEqualTo(LayoutTable.standard().func(r.func()).requestSize());
            assertThat(r.body().getInt(0)).as("ec.fd").isEqualTo(3);
        }
        // CREATE_ID: uid, ps RDMA_PS_TCP, qp_type RC
        assertThat(seen.get(1).kernel(8, 27)).isEqualTo("8877665544332211" + "0000000000000000" + "0601" + "02");
        // BIND: id, addr_size 16, sockaddr_in 10.44.0.1:7471
        assertThat(seen.get(2).kernel(8, 24)).isEqualTo("05000000" + "1000" + "0000" + "02001d2f0a2c0001");
        // LISTEN: id, backlog
        assertThat(seen.get(3).kernel(8, 16)).isEqualTo("05000000" + "04000000");
        // RESOLVE_ADDR: id, timeout, no source, dst sockaddr_in at 152
        assertThat(seen.get(4).kernel(8, 20)).isEqualTo("05000000" + "d0070000" + "0000" + "1000");
        assertThat(seen.get(4).kernel(152, 160)).isEqualTo("02001d2f0a2c0001");
        assertThat(seen.get(5).kernel(8, 16)).isEqualTo("05000000" + "d0070000");
        // INIT_QP_ATTR: id, qp_state
        assertThat(seen.get(6).kernel(16, 24)).isEqualTo("05000000" + "02000000");
        // CONNECT: conn_param {qp_num, private data, its length, responder resources and initiator depth 1,
        // retries 7, valid}, id
        Request connect = seen.get(7);
        assertThat(connect.kernel(8, 12)).isEqualTo("11000000");
        assertThat(connect.kernel(16, 18)).isEqualTo("abcd");
        assertThat(connect.kernel(272, 284)).isEqualTo("0200010100070701" + "05000000");
        // ACCEPT: uid, conn_param, id
        Request accept = seen.get(8);
        assertThat(accept.kernel(8, 20)).isEqualTo("4200000000000000" + "12000000");
        assertThat(accept.kernel(288, 292)).isEqualTo("06000000");
        assertThat(seen.get(9).kernel(288, 292)).as("PROCESS_CONN_RESP names the id").isEqualTo("05000000");
        assertThat(seen.get(10).kernel(8, 12)).isEqualTo("05000000");
        assertThat(seen.get(11).kernel(16, 20)).isEqualTo("05000000");
    }
}
