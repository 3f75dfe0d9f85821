// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.testclient;

import io.rdmanode.freeflow.internal.wire.Layout;
import io.rdmanode.freeflow.internal.wire.LayoutTable;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The rdma_cm half of the clean-room client, written from the genuine librdmacm's wire use (freeflow.md §2.4,
 * §2.7): every CM call but GET_EVENT on one connection kept open from the start (the genuine client keeps a pool
 * and writes on any of them, however long after), each event channel's CM_GET_EVENT on a connection of its own,
 * bodies {@code {ec.fd, then the ucma_abi_* command}} of librdmacm 1.1.0's {@code rdma_cma_abi.h}: at offset 4, or
 * 8 when the command holds a u64. Its header and pointers are left as garbage, as a client's would be: the router
 * builds its own. Offsets are its own; only the function ids' body sizes come from the layout table.
 */
public final class FfCmClient implements AutoCloseable {
    public static final int CM_CREATE_EVENT_CHANNEL = 36, CM_DESTROY_EVENT_CHANNEL = 37, CM_CREATE_ID = 38,
            CM_BIND = 40, CM_GET_EVENT = 41, CM_LISTEN = 43, CM_RESOLVE_ADDR = 45, CM_UCMA_PROCESS_CONN_RESP = 48,
            CM_DESTROY_ID = 49, CM_RESOLVE_ROUTE = 50, CM_INIT_QP_ATTR = 52, CM_CONNECT = 53, CM_ACCEPT = 54,
            CM_DISCONNECT = 57;
    /** {@code enum rdma_cm_event_type}. */
    public static final int ADDR_RESOLVED = 0, ROUTE_RESOLVED = 2, CONNECT_REQUEST = 4, CONNECT_RESPONSE = 5,
            REJECTED = 8, ESTABLISHED = 9, DISCONNECTED = 10;
    public static final int RDMA_PS_TCP = 0x0106;
    public static final int IBV_QPS_INIT = 1, IBV_QPS_RTR = 2, IBV_QPS_RTS = 3;
    private static final int GARBAGE = 0xeeeeeeee;

    private final Path socket;
    private final int clientId;
    private final SocketChannel control;
    private final Map<Integer, SocketChannel> events = new HashMap<>();

    public FfCmClient(Path socket, int clientId) throws IOException {
        this.socket = socket;
        this.clientId = clientId;
        this.control = SocketChannel.open(UnixDomainSocketAddress.of(socket));
    }

    /** One event of {@code struct ucma_abi_event_resp}: the connection's private data as the peer sent it. */
    public record Event(long uid, int id, int event, int status, int qpNum, byte[] privateData) {
    }

    /** A CM answer's ret (0, or the errno). */
    public static final class CmException extends IOException {
        public final int errno;

        CmException(String what, int errno) {
            super(what + ": errno " + errno);
            this.errno = errno;
        }
    }

    /** CM_CREATE_EVENT_CHANNEL: the channel's number (ec.fd); its event connection is opened with it. */
    public int createEventChannel() throws IOException {
        // The eventfd comes first (SCM_RIGHTS with 2 bytes, the descriptor dropped here), then {ret_errno, ec.fd}.
        ByteBuffer r = call(control, CM_CREATE_EVENT_CHANNEL, null, 2 + 8);
        check(r.getInt(2), "CM_CREATE_EVENT_CHANNEL");
        int ch = r.getInt(6);
        events.put(ch, SocketChannel.open(UnixDomainSocketAddress.of(socket)));
        return ch;
    }

    /** CM_DESTROY_EVENT_CHANNEL (which the genuine client never sends: its destroy sends CREATE by mistake). */
    public void destroyEventChannel(int ch) throws IOException {
        check(call(control, CM_DESTROY_EVENT_CHANNEL, body(CM_DESTROY_EVENT_CHANNEL, ch, 0), 4).getInt(0),
                "CM_DESTROY_EVENT_CHANNEL");
        SocketChannel e = events.remove(ch);
        if (e != null) {
            e.close();
        }
    }

    /** CM_CREATE_ID of an RC id (RDMA_PS_TCP) with the client's uid: the kernel's id. */
    public int createId(int ch, long uid) throws IOException {
        ByteBuffer b = body(CM_CREATE_ID, ch, 8).putLong(16, uid).putShort(32, (short) RDMA_PS_TCP).put(34, (byte) 2);
        ByteBuffer r = call(control, CM_CREATE_ID, b, 8);
        check(r.getInt(0), "CM_CREATE_ID");
        return r.getInt(4);
    }

    /** CM_BIND of an IPv4 address and port ({@code ucma_abi_bind}: id, addr_size, sockaddr_storage). */
    public void bind(int ch, int id, Inet4Address addr, int port) throws IOException {
        ByteBuffer b = body(CM_BIND, ch, 8).putInt(16, id).putShort(20, (short) 16);
        sockaddrIn(b, 24, addr, port);
        check(call(control, CM_BIND, b, 4).getInt(0), "CM_BIND");
    }

    /** CM_LISTEN. */
    public void listen(int ch, int id, int backlog) throws IOException {
        check(call(control, CM_LISTEN, body(CM_LISTEN, ch, 4).putInt(12, id).putInt(16, backlog), 4).getInt(0),
                "CM_LISTEN");
    }

    /** CM_RESOLVE_ADDR towards an IPv4 address and port, no source ({@code ucma_abi_resolve_addr}). */
    public void resolveAddr(int ch, int id, Inet4Address dst, int port, int timeoutMs) throws IOException {
        ByteBuffer b = body(CM_RESOLVE_ADDR, ch, 8).putInt(16, id).putInt(20, timeoutMs).putShort(26, (short) 16);
        sockaddrIn(b, 160, dst, port);
        check(call(control, CM_RESOLVE_ADDR, b, 4).getInt(0), "CM_RESOLVE_ADDR");
    }

    /** CM_RESOLVE_ROUTE. */
    public void resolveRoute(int ch, int id, int timeoutMs) throws IOException {
        ByteBuffer b = body(CM_RESOLVE_ROUTE, ch, 4).putInt(12, id).putInt(16, timeoutMs);
        check(call(control, CM_RESOLVE_ROUTE, b, 4).getInt(0), "CM_RESOLVE_ROUTE");
    }

    /** CM_INIT_QP_ATTR: the kernel's {@code struct ib_uverbs_qp_attr} (144 bytes) for moving the id's QP to state. */
    public ByteBuffer initQpAttr(int ch, int id, int state) throws IOException {
        ByteBuffer b = body(CM_INIT_QP_ATTR, ch, 8).putLong(16, GARBAGE).putInt(24, id).putInt(28, state);
        ByteBuffer r = call(control, CM_INIT_QP_ATTR, b, 4 + 144);
        check(r.getInt(0), "CM_INIT_QP_ATTR " + state);
        return FfClient.buf(144).put(0, r, 4, 144);
    }

    /**
     * CM_CONNECT with the QP's number and private data ({@code ucma_abi_conn_param}: qp_num, reserved, private_data
     * [256], its length, srq, responder_resources, initiator_depth, flow_control, retry_count, rnr_retry_count,
     * valid), as librdmacm's rdma_connect sends it.
     */
    public void connect(int ch, int id, int qpNum, byte[] privateData) throws IOException {
        ByteBuffer b = body(CM_CONNECT, ch, 4);
        connParam(b, 12, qpNum, privateData);
        b.putInt(284, id);
        check(call(control, CM_CONNECT, b, 4).getInt(0), "CM_CONNECT");
    }

    /** CM_ACCEPT of a connection request's id with the QP's number and private data. */
    public void accept(int ch, int id, long uid, int qpNum, byte[] privateData) throws IOException {
        ByteBuffer b = body(CM_ACCEPT, ch, 8).putLong(16, uid);
        connParam(b, 24, qpNum, privateData);
        b.putInt(296, id);
        check(call(control, CM_ACCEPT, b, 4).getInt(0), "CM_ACCEPT");
    }

    /**
     * CM_UCMA_PROCESS_CONN_RESP: what librdmacm sends after moving the active side's QP to RTS on CONNECT_RESPONSE
     * (an accept naming the id only); the kernel then completes the handshake and the client reports ESTABLISHED.
     */
    public void processConnResp(int ch, int id) throws IOException {
        ByteBuffer b = body(CM_UCMA_PROCESS_CONN_RESP, ch, 8).putInt(296, id);
        check(call(control, CM_UCMA_PROCESS_CONN_RESP, b, 4).getInt(0), "CM_UCMA_PROCESS_CONN_RESP");
    }

    /** CM_DISCONNECT. */
    public void disconnect(int ch, int id) throws IOException {
        check(call(control, CM_DISCONNECT, body(CM_DISCONNECT, ch, 4).putInt(12, id), 4).getInt(0), "CM_DISCONNECT");
    }

    /** CM_DESTROY_ID: the events the kernel reported for the id. */
    public int destroyId(int ch, int id) throws IOException {
        ByteBuffer r = call(control, CM_DESTROY_ID, body(CM_DESTROY_ID, ch, 8).putLong(16, GARBAGE).putInt(24, id), 8);
        check(r.getInt(0), "CM_DESTROY_ID");
        return r.getInt(4);
    }

    /** CM_GET_EVENT on the channel's own connection; waits up to {@code timeoutMs} for the router's answer. */
    public Event getEvent(int ch, long timeoutMs) throws IOException {
        sendGetEvent(ch);
        return readEvent(ch, timeoutMs);
    }

    /** Sends CM_GET_EVENT without waiting: the router parks it until the channel has an event. */
    public void sendGetEvent(int ch) throws IOException {
        ByteBuffer h = FfClient.buf(12 + 24).putInt(0, clientId).putInt(4, CM_GET_EVENT).putInt(8, 24).putInt(12, ch)
                .putInt(20, GARBAGE).putLong(28, GARBAGE);
        SocketChannel e = events.get(ch);
        while (h.hasRemaining()) {
            e.write(h);
        }
    }

    /** The answer of a CM_GET_EVENT sent on the channel's connection, waiting up to {@code timeoutMs}. */
    public Event readEvent(int ch, long timeoutMs) throws IOException {
        ByteBuffer r = readWithin(events.get(ch), 336, timeoutMs);
        check(r.getInt(0), "CM_GET_EVENT");
        // ucma_abi_event_resp at 8: uid, id, event, status, then the conn param (qp_num, reserved, private_data).
        byte[] data = new byte[Byte.toUnsignedInt(r.get(8 + 20 + 264))];
        r.get(8 + 28, data);
        return new Event(r.getLong(8), r.getInt(16), r.getInt(20), r.getInt(24), r.getInt(28), data);
    }

    /**
     * MODIFY_QP with the attributes and mask INIT_QP_ATTR answered ({@code struct ib_uverbs_qp_attr}), as
     * librdmacm does through ibv_modify_qp.
     */
    public static void modifyQp(FfClient verbs, Qp qp, ByteBuffer k) throws IOException {
        Layout rq = LayoutTable.struct("modify_qp_req");
        ByteBuffer b = FfClient.buf(rq.size()).putInt(rq.off("handle"), qp.handle());
        b.putInt(rq.off("attr_mask"), k.getInt(0)).putInt(rq.off("qp_state"), k.getInt(4))
                .putInt(rq.off("cur_qp_state"), k.getInt(8)).putInt(rq.off("path_mtu"), k.getInt(12))
                .putInt(rq.off("path_mig_state"), k.getInt(16)).putInt(rq.off("qkey"), k.getInt(20))
                .putInt(rq.off("rq_psn"), k.getInt(24)).putInt(rq.off("sq_psn"), k.getInt(28))
                .putInt(rq.off("dest_qp_num"), k.getInt(32)).putInt(rq.off("qp_access_flags"), k.getInt(36));
        // ah_attr at 40: grh {dgid, flow_label, sgid_index, hop_limit, traffic_class}, dlid, sl, src_path_bits,
        // static_rate, is_global, port_num
        b.put(rq.off("dgid"), k, 40, 16).putInt(rq.off("flow_label"), k.getInt(56))
                .put(rq.off("sgid_index"), k.get(60)).put(rq.off("hop_limit"), k.get(61))
                .put(rq.off("traffic_class"), k.get(62)).putShort(rq.off("dlid"), k.getShort(64))
                .put(rq.off("sl"), k.get(66)).put(rq.off("src_path_bits"), k.get(67))
                .put(rq.off("static_rate"), k.get(68)).put(rq.off("is_global"), k.get(69))
                .put(rq.off("ah_port_num"), k.get(70));
        b.putShort(rq.off("pkey_index"), k.getShort(124)).put(rq.off("max_rd_atomic"), k.get(130))
                .put(rq.off("max_dest_rd_atomic"), k.get(131)).put(rq.off("min_rnr_timer"), k.get(132))
                .put(rq.off("port_num"), k.get(133)).put(rq.off("timeout"), k.get(134))
                .put(rq.off("retry_cnt"), k.get(135)).put(rq.off("rnr_retry"), k.get(136));
        int ret = verbs.call(FfClient.MODIFY_QP, b, LayoutTable.struct("modify_qp_rsp").size()).getInt(0);
        if (ret != 0) {
            throw new IOException("MODIFY_QP to state " + k.getInt(4) + " with the CM's attributes: errno " + ret);
        }
    }

    /** Whether the kept control connection is still the router's (a cut one reads end of stream). */
    public SocketChannel controlConnection() {
        return control;
    }

    @Override
    public void close() throws IOException {
        for (SocketChannel e : events.values()) {
            e.close();
        }
        control.close();
    }

    // ---- wire

    /** A body of the function's size: ec.fd at 0, garbage in the command's header at {@code cmdAt}. */
    private static ByteBuffer body(int func, int ch, int cmdAt) {
        ByteBuffer b = FfClient.buf(LayoutTable.standard().func(func).requestSize()).putInt(0, ch);
        if (cmdAt > 0) {
            b.putInt(cmdAt, GARBAGE).putInt(cmdAt + 4, GARBAGE);
        }
        return b;
    }

    private static void sockaddrIn(ByteBuffer b, int at, Inet4Address addr, int port) {
        b.putShort(at, (short) 2).put(at + 2, (byte) (port >> 8)).put(at + 3, (byte) port).put(at + 4, addr.getAddress());
    }

    /** responder_resources and initiator_depth 1 (one RDMA READ in flight), retries 7, as rping asks. */
    private static void connParam(ByteBuffer b, int at, int qpNum, byte[] privateData) {
        b.putInt(at, qpNum).put(at + 8, privateData).put(at + 264, (byte) privateData.length);
        b.put(at + 266, (byte) 1).put(at + 267, (byte) 1).put(at + 269, (byte) 7).put(at + 270, (byte) 7)
                .put(at + 271, (byte) 1);
    }

    private ByteBuffer call(SocketChannel ch, int func, ByteBuffer body, int rspSize) throws IOException {
        ByteBuffer h = FfClient.buf(12).putInt(0, clientId).putInt(4, func).putInt(8, body == null ? 0 : body.capacity());
        while (h.hasRemaining()) {
            ch.write(h);
        }
        if (body != null) {
            body.clear();
            while (body.hasRemaining()) {
                ch.write(body);
            }
        }
        return readWithin(ch, rspSize, 60_000);
    }

    /** Reads exactly n bytes, waiting at most timeoutMs for them (a router that never answers fails the test). */
    private static ByteBuffer readWithin(SocketChannel ch, int n, long timeoutMs) throws IOException {
        ByteBuffer r = FfClient.buf(n);
        long end = System.nanoTime() + timeoutMs * 1_000_000L;
        ch.configureBlocking(false);
        try (Selector s = Selector.open()) {
            ch.register(s, SelectionKey.OP_READ);
            while (r.hasRemaining()) {
                long left = (end - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    throw new IOException("no answer within " + timeoutMs + " ms: " + r.position() + " of " + n + " bytes");
                }
                s.select(left);
                if (ch.read(r) < 0) {
                    throw new IOException("router closed after " + r.position() + " of " + n + " bytes");
                }
            }
        }
        ch.configureBlocking(true);                    // the selector's close deregistered it
        return r.clear();
    }

    private static void check(int ret, String what) throws CmException {
        if (ret != 0) {
            throw new CmException(what, ret);
        }
    }
}
