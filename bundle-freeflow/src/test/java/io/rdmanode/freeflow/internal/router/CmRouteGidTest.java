// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_AH_SGID_INDEX;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_QP_STATE;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.freeflow.internal.rdmacm.CmChannel;
import io.rdmanode.freeflow.internal.rdmacm.FakeKernelCm;
import io.rdmanode.freeflow.internal.rdmacm.RdmaCm;
import io.rdmanode.freeflow.internal.wire.Func;
import io.rdmanode.freeflow.internal.wire.LayoutTable;
import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfCmClient;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The source GID of a QP rdma_cm connects is the route's: the kernel's CM resolved the route from a source address
 * (its GID index is in INIT_QP_ATTR's answer) and told the peer's CM that GID, so the device must send from it, not
 * from {@code freeflow.gidIndex} (a device that checks an RC packet's source against the QP's peer, as rxe does,
 * drops the rest). A QP the client addresses itself keeps the configured index. Router on a recording device, rdma_cm
 * on a fake kernel whose INIT_QP_ATTR for RTR answers GID index 3; the router's is 1.
 */
class CmRouteGidTest {
    private static final int PEER_QPN = 0x00b200;
    @TempDir
    Path tmp;
    private FakeVerbsDevice dev;
    private Router router;
    private ControlServer server;
    private FfClient c;

    /** {@code struct ib_uverbs_qp_attr} for RTR towards PEER_QPN at fe80::7 from GID index 3 (global). */
    private static byte[] rtrAttr() {
        ByteBuffer k = FfClient.buf(144);
        k.putInt(0, 1 | 128 | 256 | 1048576 | 4096 | 131072 | 32768).putInt(4, 2).putInt(12, 3).putInt(24, 0x1234)
                .putInt(32, PEER_QPN);
        k.put(40, (byte) 0xfe).put(41, (byte) 0x80).put(55, (byte) 7).put(60, (byte) 3).put(61, (byte) 1);
        k.put(69, (byte) 1).put(70, (byte) 1).put(131, (byte) 1).put(132, (byte) 12).put(133, (byte) 1);
        return k.array();
    }

    @BeforeEach
    void given_a_router_on_a_device_with_gid_index_1() throws Exception {
        dev = new FakeVerbsDevice(3);
        Path shm = Files.createDirectory(tmp.resolve("shm"));
        router = new Router(new RouterSettings(shm, "t", Limits.defaults(), PollerSettings.defaults(),
                RouterSettings.Backend.verbs(dev.name(), 1)), dev, max -> FakeKernelCm.answeringInitQpAttr(max, rtrAttr()));
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "ffg");
        server = new ControlServer(dir.resolve("r"), router, 2, 100);
        c = new FfClient(server.socket(), shm, 7);
    }

    @AfterEach
    void close() throws Exception {
        server.close();
        router.close();
        Files.deleteIfExists(server.socket().getParent());
    }

    private Qp qpInInit() throws Exception {
        int pd = c.allocPd();
        Cq cq = c.createCq(16);
        Qp qp = c.createQp(pd, cq, cq, 8, 1);
        assertThat(c.modifyQp(qp, 1, 1 | 8 | 16 | 32, 0, 7, 0, 0)).isZero();
        return qp;
    }

    /** INIT_QP_ATTR for RTR of a cm_id of this process's, as the client's librdmacm asks it. */
    private ByteBuffer initQpAttrRtr() {
        Tenant t = router.tenantByPid((int) ProcessHandle.current().pid());
        RdmaCm cm = router.cm();
        CmChannel ch = cm.createChannel(t);
        LayoutTable l = LayoutTable.standard();
        ByteBuffer create = FfClient.buf(l.func(Func.CM_CREATE_ID).requestSize()).putInt(0, ch.number());
        int id = cm.execute(t, q -> false, Func.CM_CREATE_ID, create, 8).getInt(4);
        ByteBuffer init = FfClient.buf(l.func(Func.CM_INIT_QP_ATTR).requestSize()).putInt(0, ch.number())
                .putInt(24, id).putInt(28, 2);
        ByteBuffer answer = cm.execute(t, q -> false, Func.CM_INIT_QP_ATTR, init, 148);
        return FfClient.buf(144).put(0, answer, 4, 144);
    }

    @Test
    void a_qp_moved_with_the_cms_rtr_attributes_sends_from_the_routes_gid() throws Exception {
        Qp qp = qpInInit();
        FfCmClient.modifyQp(c, qp, initQpAttrRtr());

        ByteBuffer rtr = dev.modifies.get(dev.modifies.size() - 1).attr();
        assertThat(rtr.getInt(ATTR_QP_STATE)).as("qp_state RTR").isEqualTo(2);
        assertThat(rtr.get(ATTR_AH_SGID_INDEX)).as("the route's GID index, not the router's 1").isEqualTo((byte) 3);
    }

    @Test
    void a_qp_the_client_addresses_itself_keeps_the_configured_gid_even_towards_the_same_peer() throws Exception {
        Qp other = qpInInit();
        initQpAttrRtr();
        byte[] gid = new byte[16];
        gid[0] = (byte) 0xfe;
        gid[1] = (byte) 0x80;
        gid[15] = 7;
        // The same peer and GID, the client's own sgid_index 0 (of its sysfs view): not the CM's answer.
        assertThat(c.modifyQp(other, 2, 1 | 128 | 256 | 1048576 | 4096 | 131072 | 32768, PEER_QPN, 0, 12, 0, gid, 1))
                .isZero();

        assertThat(dev.modifies.get(dev.modifies.size() - 1).attr().get(ATTR_AH_SGID_INDEX)).isEqualTo((byte) 1);
    }
}
