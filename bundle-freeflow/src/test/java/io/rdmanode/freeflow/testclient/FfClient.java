// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.testclient;

import io.rdmanode.freeflow.internal.wire.Layout;
import io.rdmanode.freeflow.internal.wire.LayoutTable;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A clean-room Freeflow client in Java, written from freeflow.md §2 like the genuine libibverbs shim behaves: a
 * new Unix connection per control verb, mailboxes for post/poll, MR files mapped from the router's shm names. It
 * shares only the layout table (offsets and sizes) with the router; all encoding and decoding is its own.
 */
public final class FfClient {
    public static final int IBV_GET_CONTEXT = 1, QUERY_DEV = 2, QUERY_PORT = 4, ALLOC_PD = 5, DEALLOC_PD = 6,
            CREATE_QP = 7, MODIFY_QP = 8, QUERY_QP = 9, DESTROY_QP = 10, CREATE_CQ = 15, DESTROY_CQ = 16,
            POLL_CQ = 17, REG_MR = 21, REG_MR_MAPPING = 22, DEREG_MR = 23, POST_SEND = 25, POST_RECV = 26,
            CREATE_SRQ = 11, MODIFY_SRQ = 12, POST_SRQ_RECV = 13, DESTROY_SRQ = 14, GET_CQ_EVENT = 18,
            REQ_NOTIFY_CQ = 20, CREATE_COMP_CHANNEL = 27, CREATE_AH = 29, DESTROY_AH = 30, FFR_GET_ASYNC_FD = 63,
            FFR_GET_ASYNC_EVENT = 64;
    private static final VarHandle STATE = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final Path socket;
    private final Path shmDir;
    private final int clientId;

    public FfClient(Path socket, Path shmDir, int clientId) {
        this.socket = socket;
        this.shmDir = shmDir;
        this.clientId = clientId;
    }

    static Layout l(String name) {
        return LayoutTable.struct(name);
    }

    public static ByteBuffer buf(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** One control call: connect, header + body, read exactly rspSize bytes, close. */
    public ByteBuffer call(int func, ByteBuffer body, int rspSize) throws IOException {
        return raw(func, body == null ? 0 : body.capacity(), body, rspSize);
    }

    public ByteBuffer raw(int func, long bodySize, ByteBuffer body, int rspSize) throws IOException {
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            ByteBuffer h = buf(12).putInt(0, clientId).putInt(4, func).putInt(8, (int) bodySize);
            while (h.hasRemaining()) {
                ch.write(h);
            }
            if (body != null) {
                body.clear();
                while (body.hasRemaining()) {
                    ch.write(body);
                }
            }
            ByteBuffer rsp = buf(rspSize);
            while (rsp.hasRemaining()) {
                if (ch.read(rsp) < 0) {
                    throw new IOException("router closed after " + rsp.position() + " of " + rspSize + " bytes");
                }
            }
            return rsp.clear();
        }
    }

    /** CREATE_COMP_CHANNEL: the router's fd number for the channel, -1 when refused (the passed fd is dropped). */
    public int createCompChannel() throws IOException {
        ByteBuffer r = call(CREATE_COMP_CHANNEL, null, 2 + 4);
        return r.getInt(2);
    }

    /**
     * FFR_GET_ASYNC_FD: {ret, the router's number of the tenant's async eventfd} (the passed fd itself is dropped:
     * this client polls with {@link #asyncEvent} instead).
     */
    public int[] asyncFd() throws IOException {
        ByteBuffer r = call(FFR_GET_ASYNC_FD, null, 2 + 8);
        return new int[] {r.getInt(2), r.getInt(6)};
    }

    /**
     * FFR_GET_ASYNC_FD as a client that keeps the descriptor: {ret, the router's number, the descriptor received over
     * SCM_RIGHTS (-1 if none came)}; the caller closes it.
     */
    public int[] asyncFdReceived() throws IOException {
        io.rdmanode.posix.Posix libc = io.rdmanode.posix.Posix.libc();
        int fd = libc.socket(io.rdmanode.posix.Posix.AF_UNIX, io.rdmanode.posix.Posix.SOCK_STREAM
                | io.rdmanode.posix.Posix.SOCK_CLOEXEC, 0);
        try {
            byte[] p = socket.toString().getBytes(StandardCharsets.UTF_8);
            byte[] addr = new byte[2 + p.length + 1];
            addr[0] = io.rdmanode.posix.Posix.AF_UNIX;
            System.arraycopy(p, 0, addr, 2, p.length);
            libc.connect(fd, addr);
            byte[] h = new byte[12];
            buf(12).putInt(0, clientId).putInt(4, FFR_GET_ASYNC_FD).putInt(8, 0).get(0, h);
            libc.send(fd, h, 12, 0);
            ByteBuffer first = ByteBuffer.allocate(2);
            int[] passed = libc.recvmsg(fd, first, 0).fds();
            ByteBuffer rsp = buf(8);
            while (rsp.hasRemaining()) {
                if (libc.recvmsg(fd, rsp, 0).bytes() == 0) {
                    throw new IOException("router closed after " + rsp.position() + " of 8 bytes");
                }
            }
            return new int[] {rsp.getInt(0), rsp.getInt(4), passed.length > 0 ? passed[0] : -1};
        } finally {
            libc.close(fd);
        }
    }

    /** One async event (FFR_GET_ASYNC_EVENT): element, type and ret (11, EAGAIN, when none is queued). */
    public record AsyncEvent(long element, int type, int ret) {
    }

    public AsyncEvent asyncEvent() throws IOException {
        Layout l = l("async_event_rsp");
        ByteBuffer r = call(FFR_GET_ASYNC_EVENT, null, l.size());
        return new AsyncEvent(r.getLong(l.off("element")), r.getInt(l.off("event_type")), r.getInt(l.off("ret")));
    }

    /** Every async event queued now, oldest first. */
    public List<AsyncEvent> asyncEvents() throws IOException {
        List<AsyncEvent> all = new ArrayList<>();
        for (AsyncEvent e; (e = asyncEvent()).ret() == 0; ) {
            all.add(e);
        }
        return all;
    }

    /** CREATE_CQ on a completion channel (router fd number). */
    public Cq createCq(int depth, int channelFd) throws IOException {
        Layout rq = l("create_cq_req");
        Layout rs = l("create_cq_rsp");
        ByteBuffer b = buf(rq.size()).putInt(rq.off("channel_fd"), channelFd).putInt(rq.off("cqe"), depth);
        ByteBuffer r = call(CREATE_CQ, b, rs.size());
        int handle = r.getInt(rs.off("handle"));
        return handle == 0 ? null : new Cq(handle, mailbox(cstring(r, rs.off("shm_name"))));
    }

    /** REQ_NOTIFY_CQ (not solicited-only); returns ret. */
    public int reqNotifyCq(Cq cq) throws IOException {
        return reqNotifyCq(cq, false);
    }

    /** REQ_NOTIFY_CQ, solicited-only or not; returns ret. */
    public int reqNotifyCq(Cq cq, boolean solicitedOnly) throws IOException {
        return call(REQ_NOTIFY_CQ, buf(8).putInt(0, cq.handle).putInt(4, solicitedOnly ? 1 : 0), 4).getInt(0);
    }

    /** A connection kept for a channel's GET_CQ_EVENT requests, as the genuine client keeps one per channel. */
    public SocketChannel open() throws IOException {
        return SocketChannel.open(UnixDomainSocketAddress.of(socket));
    }

    /** Sends GET_CQ_EVENT for the channel on ch without waiting for the answer. */
    public void sendGetCqEvent(SocketChannel ch, int channelFd) throws IOException {
        ByteBuffer h = buf(16).putInt(0, clientId).putInt(4, GET_CQ_EVENT).putInt(8, 4).putInt(12, channelFd);
        while (h.hasRemaining()) {
            ch.write(h);
        }
    }

    /** Reads GET_CQ_EVENT's answer from ch: {cq_handle, comp_events_completed, async_events_completed}. */
    public static int[] readCqEvent(SocketChannel ch) throws IOException {
        ByteBuffer r = buf(12);
        while (r.hasRemaining()) {
            if (ch.read(r) < 0) {
                throw new IOException("router closed after " + r.position() + " of 12 bytes");
            }
        }
        return new int[] {r.getInt(0), r.getInt(4), r.getInt(8)};
    }

    public int allocPd() throws IOException {
        return call(ALLOC_PD, null, 4).getInt(0);
    }

    public int ret(int func, int handle) throws IOException {
        return call(func, buf(4).putInt(0, handle), 4).getInt(0);
    }

    public Cq createCq(int depth) throws IOException {
        Layout rq = l("create_cq_req");
        Layout rs = l("create_cq_rsp");
        ByteBuffer b = buf(rq.size()).putInt(rq.off("channel_fd"), -1).putInt(rq.off("cqe"), depth);
        ByteBuffer r = call(CREATE_CQ, b, rs.size());
        int handle = r.getInt(rs.off("handle"));
        return handle == 0 ? null : new Cq(handle, mailbox(cstring(r, rs.off("shm_name"))));
    }

    public Qp createQp(int pd, Cq send, Cq recv, int wr, int sge) throws IOException {
        return createQp(pd, send, recv, wr, sge, 2);
    }

    /** CREATE_QP of {@code type} (RC 2, UC 3, UD 4). */
    public Qp createQp(int pd, Cq send, Cq recv, int wr, int sge, int type) throws IOException {
        return createQp(pd, send, recv, wr, sge, type, null);
    }

    /** CREATE_QP whose receives come from {@code srq} (null: its own receive queue). */
    public Qp createQp(int pd, Cq send, Cq recv, int wr, int sge, int type, Srq srq) throws IOException {
        return createQp(pd, send, recv, wr, sge, type, srq, 0);
    }

    /** CREATE_QP asking {@code maxInline} bytes of inline data ({@code cap.max_inline_data}). */
    public Qp createQp(int pd, Cq send, Cq recv, int wr, int sge, int type, Srq srq, int maxInline) throws IOException {
        Layout rq = l("create_qp_req");
        Layout rs = l("create_qp_rsp");
        ByteBuffer b = buf(rq.size()).putInt(rq.off("pd_handle"), pd).putInt(rq.off("qp_type"), type)
                .putInt(rq.off("send_cq_handle"), send.handle).putInt(rq.off("recv_cq_handle"), recv.handle)
                .putInt(rq.off("max_send_wr"), wr).putInt(rq.off("max_recv_wr"), wr)
                .putInt(rq.off("max_send_sge"), sge).putInt(rq.off("max_recv_sge"), sge)
                .putInt(rq.off("srq_handle"), srq == null ? 0 : srq.handle).putInt(rq.off("max_inline_data"), maxInline);
        ByteBuffer r = call(CREATE_QP, b, rs.size());
        int handle = r.getInt(rs.off("handle"));
        return handle == 0 ? null : new Qp(handle, r.getInt(rs.off("qp_num")), mailbox(cstring(r, rs.off("shm_name"))));
    }

    /** CREATE_AH towards dgid (a RoCE peer's GID; global when not zero); returns the handle, 0 when refused. */
    public int createAh(int pd, byte[] dgid) throws IOException {
        Layout rq = l("create_ah_req");
        boolean global = false;
        for (byte x : dgid) {
            global |= x != 0;
        }
        ByteBuffer b = buf(rq.size()).putInt(rq.off("pd_handle"), pd);
        b.put(rq.off("dgid"), dgid).put(rq.off("is_global"), (byte) (global ? 1 : 0)).put(rq.off("port_num"), (byte) 1);
        return call(CREATE_AH, b, l("create_ah_rsp").size()).getInt(0);
    }

    /** RESET→INIT (pkey index, port, qkey)→RTR→RTS (sq_psn) of a UD QP, as ibv_ud_pingpong does. */
    public void connectUd(Qp qp, int qkey) throws IOException {
        Layout rq = l("modify_qp_req");
        int[][] steps = {{1, 1 | 16 | 32 | 64}, {2, 1}, {3, 1 | 65536}};
        for (int[] step : steps) {
            ByteBuffer b = buf(rq.size()).putInt(rq.off("handle"), qp.handle).putInt(rq.off("qp_state"), step[0])
                    .putInt(rq.off("qkey"), qkey).putInt(rq.off("attr_mask"), step[1]);
            b.put(rq.off("port_num"), (byte) 1);
            check(call(MODIFY_QP, b, l("modify_qp_rsp").size()).getInt(0), "UD state " + step[0]);
        }
    }

    /** QUERY_QP of every attribute: the answer (ret_errno, then the kernel ibv_query_qp_resp; query_qp_rsp). */
    public ByteBuffer queryQp(Qp qp) throws IOException {
        Layout rq = l("query_qp_req");
        return call(QUERY_QP, buf(rq.size()).putInt(rq.off("cmd_size"), 24).putInt(rq.off("qp_handle"), qp.handle)
                .putInt(rq.off("attr_mask"), -1), l("query_qp_rsp").size());
    }

    /** CREATE_SRQ; null when refused. */
    public Srq createSrq(int pd, int maxWr, int maxSge) throws IOException {
        Layout rq = l("create_srq_req");
        Layout rs = l("create_srq_rsp");
        ByteBuffer b = buf(rq.size()).putInt(rq.off("pd_handle"), pd).putInt(rq.off("max_wr"), maxWr)
                .putInt(rq.off("max_sge"), maxSge);
        ByteBuffer r = call(CREATE_SRQ, b, rs.size());
        int handle = r.getInt(rs.off("srq_handle"));
        return handle == 0 ? null : new Srq(handle, mailbox(cstring(r, rs.off("shm_name"))));
    }

    /** MODIFY_SRQ; returns ret. */
    public int modifySrq(Srq srq, int maxWr, int limit, int mask) throws IOException {
        Layout rq = l("modify_srq_req");
        ByteBuffer b = buf(rq.size()).putInt(rq.off("srq_handle"), srq.handle).putInt(rq.off("max_wr"), maxWr)
                .putInt(rq.off("srq_limit"), limit).putInt(rq.off("mask"), mask);
        return call(MODIFY_SRQ, b, 4).getInt(0);
    }

    /** MODIFY_QP with the given state and attributes (mask computed by the caller). Returns ret. */
    public int modifyQp(Qp qp, int state, int mask, int destQpn, int access, int minRnrTimer, int rnrRetry)
            throws IOException {
        return modifyQp(qp, state, mask, destQpn, access, minRnrTimer, rnrRetry, new byte[16]);
    }

    /** MODIFY_QP with the peer's GID in the address vector (a QP on a RoCE device needs it). */
    public int modifyQp(Qp qp, int state, int mask, int destQpn, int access, int minRnrTimer, int rnrRetry,
                        byte[] dgid) throws IOException {
        return modifyQp(qp, state, mask, destQpn, access, minRnrTimer, rnrRetry, dgid, 0);
    }

    /** ... and with max_rd_atomic and max_dest_rd_atomic (RDMA READs in flight; a device needs them for READ). */
    public int modifyQp(Qp qp, int state, int mask, int destQpn, int access, int minRnrTimer, int rnrRetry,
                        byte[] dgid, int rdAtomic) throws IOException {
        return modifyQp(qp, state, mask, destQpn, access, minRnrTimer, rnrRetry, dgid, rdAtomic, 14, 7);
    }

    /** ... and with the ack timeout (4.096 µs × 2^timeout) and retry_cnt (rxe retries for ever at 7). */
    public int modifyQp(Qp qp, int state, int mask, int destQpn, int access, int minRnrTimer, int rnrRetry,
                        byte[] dgid, int rdAtomic, int timeout, int retryCnt) throws IOException {
        Layout rq = l("modify_qp_req");
        ByteBuffer b = buf(rq.size()).putInt(rq.off("handle"), qp.handle).putInt(rq.off("qp_state"), state)
                .putInt(rq.off("dest_qp_num"), destQpn).putInt(rq.off("qp_access_flags"), access)
                .putInt(rq.off("path_mtu"), 5).putInt(rq.off("attr_mask"), mask);
        b.put(rq.off("port_num"), (byte) 1).put(rq.off("min_rnr_timer"), (byte) minRnrTimer)
                .put(rq.off("rnr_retry"), (byte) rnrRetry).put(rq.off("retry_cnt"), (byte) retryCnt)
                .put(rq.off("timeout"), (byte) timeout);
        b.put(rq.off("dgid"), dgid);
        b.put(rq.off("max_rd_atomic"), (byte) rdAtomic).put(rq.off("max_dest_rd_atomic"), (byte) rdAtomic);
        return call(MODIFY_QP, b, l("modify_qp_rsp").size()).getInt(0);
    }

    /** RESET→INIT→RTR→RTS towards destQpn, the way perftest does it. */
    public void connect(Qp qp, int destQpn, int access, int minRnrTimer, int rnrRetry) throws IOException {
        check(modifyQp(qp, 1, 1 | 8 | 16 | 32, 0, access, 0, 0), "INIT");
        check(modifyQp(qp, 2, 1 | 128 | 256 | 1048576 | 4096 | 131072 | 32768, destQpn, 0, minRnrTimer, 0), "RTR");
        check(modifyQp(qp, 3, 1 | 65536 | 512 | 1024 | 2048 | 8192, 0, 0, 0, rnrRetry), "RTS");
    }

    /** {@link #connect} towards a QP at the GID dgid (a RoCE device's peer), one RDMA READ in flight each way. */
    public void connect(Qp qp, int destQpn, int access, int minRnrTimer, int rnrRetry, byte[] dgid) throws IOException {
        check(modifyQp(qp, 1, 1 | 8 | 16 | 32, 0, access, 0, 0, dgid, 1), "INIT");
        check(modifyQp(qp, 2, 1 | 128 | 256 | 1048576 | 4096 | 131072 | 32768, destQpn, 0, minRnrTimer, 0, dgid, 1),
                "RTR");
        check(modifyQp(qp, 3, 1 | 65536 | 512 | 1024 | 2048 | 8192, 0, 0, 0, rnrRetry, dgid, 1), "RTS");
    }

    /** {@link #connect(Qp, int, int, int, int, byte[])} with the RTS ack timeout and retry_cnt given. */
    public void connect(Qp qp, int destQpn, int access, int minRnrTimer, int rnrRetry, byte[] dgid, int timeout,
                        int retryCnt) throws IOException {
        check(modifyQp(qp, 1, 1 | 8 | 16 | 32, 0, access, 0, 0, dgid, 1), "INIT");
        check(modifyQp(qp, 2, 1 | 128 | 256 | 1048576 | 4096 | 131072 | 32768, destQpn, 0, minRnrTimer, 0, dgid, 1),
                "RTR");
        check(modifyQp(qp, 3, 1 | 65536 | 512 | 1024 | 2048 | 8192, 0, 0, 0, rnrRetry, dgid, 1, timeout, retryCnt),
                "RTS");
    }

    /** RESET→INIT→RTR→RTS of a UC QP with exactly the mask bits uc_pingpong sets (no RC-only attributes). */
    public void connectUc(Qp qp, int destQpn, int access) throws IOException {
        check(modifyQp(qp, 1, 1 | 8 | 16 | 32, 0, access, 0, 0), "INIT");
        check(modifyQp(qp, 2, 1 | 128 | 256 | 1048576 | 4096, destQpn, 0, 0, 0), "RTR");
        check(modifyQp(qp, 3, 1 | 65536, 0, 0, 0, 0), "RTS");
    }

    /** {@link #connectUc} towards a UC QP at the GID dgid (a RoCE device's peer). */
    public void connectUc(Qp qp, int destQpn, int access, byte[] dgid) throws IOException {
        check(modifyQp(qp, 1, 1 | 8 | 16 | 32, 0, access, 0, 0, dgid), "INIT");
        check(modifyQp(qp, 2, 1 | 128 | 256 | 1048576 | 4096, destQpn, 0, 0, 0, dgid), "RTR");
        check(modifyQp(qp, 3, 1 | 65536, 0, 0, 0, 0, dgid), "RTS");
    }

    private static void check(int ret, String what) throws IOException {
        if (ret != 0) {
            throw new IOException("modify to " + what + " failed: errno " + ret);
        }
    }

    public Mr regMr(int pd, int size, int access) throws IOException {
        Layout rq = l("reg_mr_req");
        Layout rs = l("reg_mr_rsp");
        ByteBuffer b = buf(rq.size()).putInt(rq.off("pd_handle"), pd).putInt(rq.off("mem_size"), size)
                .putInt(rq.off("access_flags"), access);
        ByteBuffer r = call(REG_MR, b, rs.size());
        int handle = r.getInt(rs.off("handle"));
        if (handle == 0) {
            return null;
        }
        String name = cstring(r, rs.off("shm_name"));
        return new Mr(handle, r.getInt(rs.off("lkey")), r.getInt(rs.off("rkey")), name, map(name, size));
    }

    public int regMrMapping(int key, long appAddr) throws IOException {
        Layout rq = l("reg_mr_mapping_req");
        ByteBuffer b = buf(rq.size()).putInt(rq.off("key"), key).putLong(rq.off("mr_ptr"), appAddr);
        return call(REG_MR_MAPPING, b, 4).getInt(0);
    }

    private Mailbox mailbox(String name) throws IOException {
        return new Mailbox(map(name, l("mailbox").size()));
    }

    private MappedByteBuffer map(String name, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(shmDir.resolve(name), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            m.order(ByteOrder.LITTLE_ENDIAN);
            return m;
        }
    }

    static String cstring(ByteBuffer b, int off) {
        int n = 0;
        while (b.get(off + n) != 0) {
            n++;
        }
        byte[] s = new byte[n];
        b.get(off, s);
        return new String(s, StandardCharsets.US_ASCII);
    }

    // ---- fast path

    public record Sg(long offset, int length, int lkey) {
    }

    public record Wr(long wrId, int opcode, int flags, int imm, long remoteAddr, int rkey, Sg... sges) {
        public static Wr send(long id, Sg... sges) {
            return new Wr(id, 2, 2, 0, 0, 0, sges);
        }
    }

    public record Wc(long wrId, int status, int opcode, int byteLen, int imm, int qpNum, int srcQp, int flags) {
    }

    /** POST_SEND through the QP's mailbox; returns {ret_errno, bad_wr}. */
    public int[] postSend(Qp qp, List<Wr> wrs) {
        return postSend(qp, wrs, null, 0);
    }

    /**
     * POST_SEND on a UD QP: each WR's rkey is its remote_qpn, all carry {@code qkey}, and the body ends with one AH
     * handle per WR, as the genuine client sends it.
     */
    public int[] postSendUd(Qp qp, List<Wr> wrs, int[] ahs, int qkey) {
        return postSend(qp, wrs, ahs, qkey);
    }

    private int[] postSend(Qp qp, List<Wr> wrs, int[] ahs, int qkey) {
        Layout h = l("post_hdr");
        Layout w = l("send_wr");
        Layout s = l("sge");
        int sges = wrs.stream().mapToInt(x -> x.sges().length).sum();
        int size = h.size() + wrs.size() * w.size() + sges * s.size() + (ahs == null ? 0 : 4 * ahs.length);
        ByteBuffer m = qp.mailbox.buf;
        int body = 4 + 12;
        for (int i = 0; i < size; i += 4) {
            m.putInt(body + i, 0xdeadbeef);
        }
        m.putInt(body + h.off("qp_handle"), qp.handle).putInt(body + h.off("wr_count"), wrs.size())
                .putInt(body + h.off("sge_count"), sges);
        int sgAt = body + h.size() + wrs.size() * w.size();
        for (int i = 0; i < wrs.size(); i++) {
            Wr wr = wrs.get(i);
            int at = body + h.size() + i * w.size();
            m.putLong(at + w.off("wr_id"), wr.wrId()).putInt(at + w.off("num_sge"), wr.sges().length)
                    .putInt(at + w.off("opcode"), wr.opcode()).putInt(at + w.off("send_flags"), wr.flags())
                    .putInt(at + w.off("imm_data"), wr.imm()).putLong(at + w.off("remote_addr"), wr.remoteAddr())
                    .putInt(at + w.off("rkey"), wr.rkey());
            if (ahs != null) {
                m.putInt(at + w.off("remote_qkey"), qkey);
            }
            for (Sg g : wr.sges()) {
                m.putLong(sgAt + s.off("addr"), g.offset()).putInt(sgAt + s.off("length"), g.length())
                        .putInt(sgAt + s.off("lkey"), g.lkey());
                sgAt += s.size();
            }
        }
        for (int i = 0; ahs != null && i < ahs.length; i++) {
            m.putInt(sgAt + 4 * i, ahs[i]);
        }
        ByteBuffer r = qp.mailbox.roundTrip(POST_SEND, size, clientId);
        return new int[] {r.getInt(0), r.getInt(4)};
    }

    public int[] postRecv(Qp qp, long wrId, Sg... sges) {
        return postRecv(qp.mailbox, POST_RECV, qp.handle, wrId, sges);
    }

    /** POST_SRQ_RECV through the SRQ's mailbox. */
    public int[] postSrqRecv(Srq srq, long wrId, Sg... sges) {
        return postRecv(srq.mailbox, POST_SRQ_RECV, srq.handle, wrId, sges);
    }

    /** POST_SRQ_RECV over the control socket (the genuine client's slow path). */
    public int[] postSrqRecvSlow(Srq srq, long wrId, Sg... sges) throws IOException {
        ByteBuffer body = buf(recvBodySize(sges.length));
        writeRecvBody(body, 0, srq.handle, wrId, sges);
        ByteBuffer r = call(POST_SRQ_RECV, body, 8);
        return new int[] {r.getInt(0), r.getInt(4)};
    }

    private int[] postRecv(Mailbox mailbox, int func, int handle, long wrId, Sg... sges) {
        writeRecvBody(mailbox.buf, 16, handle, wrId, sges);
        ByteBuffer r = mailbox.roundTrip(func, recvBodySize(sges.length), clientId);
        return new int[] {r.getInt(0), r.getInt(4)};
    }

    private static int recvBodySize(int sges) {
        return l("post_hdr").size() + l("recv_wr").size() + sges * l("sge").size();
    }

    private static void writeRecvBody(ByteBuffer m, int body, int handle, long wrId, Sg... sges) {
        Layout h = l("post_hdr");
        Layout w = l("recv_wr");
        Layout s = l("sge");
        m.putInt(body + h.off("qp_handle"), handle).putInt(body + h.off("wr_count"), 1)
                .putInt(body + h.off("sge_count"), sges.length);
        int at = body + h.size();
        m.putLong(at + w.off("wr_id"), wrId).putInt(at + w.off("num_sge"), sges.length);
        int sgAt = at + w.size();
        for (Sg g : sges) {
            m.putLong(sgAt + s.off("addr"), g.offset()).putInt(sgAt + s.off("length"), g.length())
                    .putInt(sgAt + s.off("lkey"), g.lkey());
            sgAt += s.size();
        }
    }

    public List<Wc> pollCq(Cq cq, int ne) {
        Layout p = l("poll_cq_req");
        cq.mailbox.buf.putInt(16 + p.off("cq_handle"), cq.handle).putInt(16 + p.off("ne"), ne);
        ByteBuffer r = cq.mailbox.roundTrip(POLL_CQ, p.size(), clientId);
        Layout wc = l("wc");
        List<Wc> out = new ArrayList<>();
        for (int i = 0; i < r.capacity() / wc.size(); i++) {
            int at = i * wc.size();
            out.add(new Wc(r.getLong(at + wc.off("wr_id")), r.getInt(at + wc.off("status")),
                    r.getInt(at + wc.off("opcode")), r.getInt(at + wc.off("byte_len")),
                    r.getInt(at + wc.off("imm_data")), r.getInt(at + wc.off("qp_num")),
                    r.getInt(at + wc.off("src_qp")), r.getInt(at + wc.off("wc_flags"))));
        }
        return out;
    }

    /** Polls until n completions arrived (or 10 s passed). */
    public List<Wc> await(Cq cq, int n) {
        List<Wc> out = new ArrayList<>();
        long end = System.nanoTime() + 10_000_000_000L;
        while (out.size() < n && System.nanoTime() < end) {
            out.addAll(pollCq(cq, n - out.size()));
        }
        return out;
    }

    public static final class Mailbox {
        public final MappedByteBuffer buf;

        Mailbox(MappedByteBuffer buf) {
            this.buf = buf;
        }

        /** Header at req+0, body already at req+12; flip to REQ_DONE, spin for RSP_DONE, copy, back to IDLE. */
        public ByteBuffer roundTrip(int func, int bodySize, int clientId) {
            buf.putInt(4, clientId).putInt(8, func).putInt(12, bodySize);
            STATE.setRelease(buf, 0, 1);
            long end = System.nanoTime() + 10_000_000_000L;
            while ((int) STATE.getAcquire(buf, 0) != 2) {
                Thread.onSpinWait();
                if (System.nanoTime() > end) {
                    throw new IllegalStateException("router did not answer the mailbox in 10 s");
                }
            }
            int rspAt = l("mailbox").off("rsp");
            int n = buf.getInt(rspAt);
            ByteBuffer out = buf(n);
            out.put(0, buf, rspAt + 4, n);
            STATE.setRelease(buf, 0, 0);
            return out;
        }

        public int state() {
            return (int) STATE.getAcquire(buf, 0);
        }
    }

    public record Cq(int handle, Mailbox mailbox) {
    }

    public record Qp(int handle, int qpn, Mailbox mailbox) {
    }

    public record Srq(int handle, Mailbox mailbox) {
    }

    public record Mr(int handle, int lkey, int rkey, String shmName, MappedByteBuffer buf) {
    }
}
