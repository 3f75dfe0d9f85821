// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.verbs.NativeLayout;
import io.rdmanode.freeflow.internal.verbs.VerbsDevice;
import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.WireException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A device for host tests of the verbs transport: records every call, hands out handles, keys and QPNs, and keeps
 * copies of the native structs the transport built (WR lists are decoded back through their next and sg_list
 * pointers, which must point into the buffer passed). Completions are queued by the test per CQ handle; async
 * events by {@link #raise}, which makes a real pipe readable for the router's event thread.
 */
final class FakeVerbsDevice implements VerbsDevice {
    record Sg(long addr, int length, int lkey) {
    }

    record NativeWr(long wrId, int opcode, int flags, int imm, long remoteAddr, int rkey, List<Sg> sges) {
    }

    record RegMr(long pd, long addr, long length, int access) {
    }

    record Modify(long qp, ByteBuffer attr, int mask) {
    }

    final List<String> calls = new ArrayList<>();
    final Map<Long, String> live = new HashMap<>();
    final List<RegMr> regs = new ArrayList<>();
    final List<Modify> modifies = new ArrayList<>();
    final List<List<NativeWr>> sends = new ArrayList<>();
    final List<List<NativeWr>> recvs = new ArrayList<>();
    final List<List<NativeWr>> srqRecvs = new ArrayList<>();
    /** Each send WR's remote_qkey (the UD union's; for RDMA WRs the high half of the rkey word pair). */
    final List<Integer> qkeys = new ArrayList<>();
    /** Per device AH: a copy of the ibv_ah_attr it was created with. */
    final Map<Long, ByteBuffer> ahAttrs = new HashMap<>();
    /** Per device QP: its SRQ (0 for none), type and receive capacities as created. */
    final Map<Long, long[]> createdQps = new HashMap<>();
    /** Per device SRQ: max_wr, max_sge as created, then as resized. */
    final Map<Long, int[]> srqSizes = new HashMap<>();
    final Map<Long, ArrayDeque<byte[]>> completions = new HashMap<>();
    final Map<Long, Long> cqOfQp = new HashMap<>();
    /** QPN -> the device QP (its handle, what an async event names). */
    final Map<Integer, Long> qpOfQpn = new HashMap<>();
    /** The cap.max_inline_data each QP was created with. */
    final Map<Long, Integer> inlineOfQp = new HashMap<>();
    private final Map<ByteBuffer, Long> addresses = new IdentityHashMap<>();
    private long next = 0x1000;
    int nextQpn = 0x00a100;
    int nextKey = 0x1234;
    boolean closed;
    final Port port;

    FakeVerbsDevice(int activeMtu) {
        this.port = new Port(4, 5, activeMtu, 16, 0, 2);
    }

    private long handle(String what) {
        long h = next;
        next += 0x100;
        live.put(h, what);
        calls.add(what);
        return h;
    }

    /** Set: every free is refused (EBUSY) and the object stays. */
    boolean refuseFrees;

    private void free(long h, String what) {
        if (refuseFrees) {
            calls.add("refused free " + what);
            throw new WireException(Errno.EBUSY, "busy");
        }
        if (!what.equals(live.remove(h))) {
            throw new WireException(Errno.EINVAL, what + " of an unknown handle " + h);
        }
        calls.add("free " + what);
    }

    @Override
    public String name() {
        return "fake0";
    }

    @Override
    public Port port() {
        return port;
    }

    /** What ibv_query_device reports: some limits below the router's defaults, some above. */
    Attr attr = new Attr(1L << 40, 100, 1 << 20, 8, 1 << 20, 4096, 1 << 20, 1 << 20, 4, 50, 1 << 20, 64);

    @Override
    public Attr attr() {
        return attr;
    }

    /** The port's GID at every index (a test sets its own to tell a QP towards this port from one towards a peer). */
    byte[] gid = new byte[16];

    @Override
    public byte[] gid(int index) {
        return gid.clone();
    }

    @Override
    public long allocPd() {
        return handle("pd");
    }

    @Override
    public void deallocPd(long pd) {
        free(pd, "pd");
    }

    @Override
    public Mr regMr(long pd, long addr, long length, int access) {
        regs.add(new RegMr(pd, addr, length, access));
        int key = nextKey++;
        return new Mr(handle("mr"), key, (access & 6) != 0 ? key : 0);
    }

    @Override
    public void deregMr(long mr) {
        free(mr, "mr");
    }

    @Override
    public long createCq(int cqe) {
        long h = handle("cq");
        completions.put(h, new ArrayDeque<>());
        return h;
    }

    /** Set: destroying a CQ first signals it and waits for the acknowledgement, as ibv_destroy_cq waits (20 s). */
    volatile boolean signalDuringDestroy;

    @Override
    public void destroyCq(long cq) {
        if (signalDuringDestroy) {
            synchronized (this) {
                cqEvents.add(cq);
                io.rdmanode.posix.Posix.libc().write(compPipe.writeFd(), new byte[] {1}, 1);
            }
            long end = System.nanoTime() + 20_000_000_000L;
            while (cqAcks.stream().noneMatch(a -> a[0] == cq)) {
                if (System.nanoTime() > end) {
                    throw new WireException(Errno.EBUSY, "CQ " + cq + ": its event was never acknowledged");
                }
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
        }
        free(cq, "cq");
    }

    @Override
    public Qp createQp(long pd, long sendCq, long recvCq, long srq, int type, int maxSendWr, int maxRecvWr,
                       int maxSendSge, int maxRecvSge, int maxInline, boolean sqSigAll) {
        if (srq != 0 && !"srq".equals(live.get(srq))) {
            throw new WireException(Errno.EINVAL, "QP on an unknown SRQ " + srq);
        }
        long h = handle("qp");
        createdQps.put(h, new long[] {srq, type, maxRecvWr, maxRecvSge});
        inlineOfQp.put(h, maxInline);
        cqOfQp.put(h, sendCq);
        qpOfQpn.put(nextQpn, h);
        return new Qp(h, nextQpn++);
    }

    @Override
    public void modifyQp(long qp, ByteBuffer attr, int mask) {
        ByteBuffer copy = ByteBuffer.allocate(NativeLayout.QP_ATTR_SIZE).order(ByteOrder.nativeOrder());
        copy.put(0, attr, 0, NativeLayout.QP_ATTR_SIZE);
        modifies.add(new Modify(qp, copy, mask));
    }

    /**
     * Set: destroying a QP first raises an event for it and then waits for its acknowledgement, as rdma-core's
     * ibv_destroy_qp waits for every reported event to be acknowledged (up to 20 s, then it fails the destroy).
     */
    volatile boolean eventDuringDestroy;

    @Override
    public void destroyQp(long qp) {
        if (eventDuringDestroy) {
            raise(16, qp);                              // IBV_EVENT_QP_LAST_WQE_REACHED
            long end = System.nanoTime() + 20_000_000_000L;
            while (acked.stream().noneMatch(e -> e.element() == qp)) {
                if (System.nanoTime() > end) {
                    throw new WireException(Errno.EBUSY, "QP " + qp + ": its event was never acknowledged");
                }
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
        }
        free(qp, "qp");
    }

    /** Set: ibv_create_srq fails (ENOMEM). */
    boolean refuseSrqs;

    @Override
    public long createSrq(long pd, int maxWr, int maxSge) {
        if (refuseSrqs) {
            throw new WireException(Errno.ENOMEM, "no SRQ");
        }
        long h = handle("srq");
        srqSizes.put(h, new int[] {maxWr, maxSge});
        return h;
    }

    @Override
    public void resizeSrq(long srq, int maxWr) {
        calls.add("resize srq " + maxWr);
        srqSizes.get(srq)[0] = maxWr;
    }

    @Override
    public void destroySrq(long srq) {
        free(srq, "srq");
    }

    @Override
    public long createAh(long pd, ByteBuffer attr) {
        long h = handle("ah");
        ByteBuffer copy = ByteBuffer.allocate(NativeLayout.AH_ATTR_SIZE).order(ByteOrder.nativeOrder());
        copy.put(0, attr, 0, NativeLayout.AH_ATTR_SIZE);
        ahAttrs.put(h, copy);
        return h;
    }

    @Override
    public void destroyAh(long ah) {
        free(ah, "ah");
    }

    @Override
    public Posted postSrqRecv(long srq, ByteBuffer wrs) {
        srqRecvs.add(decode(wrs, false));
        return new Posted(0, 0);
    }

    @Override
    public Posted postSend(long qp, ByteBuffer wrs) {
        sends.add(decode(wrs, true));
        return new Posted(0, 0);
    }

    @Override
    public Posted postRecv(long qp, ByteBuffer wrs) {
        recvs.add(decode(wrs, false));
        return new Posted(0, 0);
    }

    private List<NativeWr> decode(ByteBuffer b, boolean send) {
        long base = address(b);
        List<NativeWr> out = new ArrayList<>();
        long at = base;
        while (at != 0) {
            int o = Math.toIntExact(at - base);
            List<Sg> sges = new ArrayList<>();
            long sgl = b.getLong(o + NativeLayout.WR_SG_LIST);
            for (int j = 0; j < b.getInt(o + NativeLayout.WR_NUM_SGE); j++) {
                int s = Math.toIntExact(sgl - base) + j * NativeLayout.SGE_SIZE;
                sges.add(new Sg(b.getLong(s + NativeLayout.SGE_ADDR), b.getInt(s + NativeLayout.SGE_LENGTH),
                        b.getInt(s + NativeLayout.SGE_LKEY)));
            }
            if (send) {
                qkeys.add(b.getInt(o + NativeLayout.WR_UD_REMOTE_QKEY));
            }
            out.add(send ? new NativeWr(b.getLong(o + NativeLayout.WR_ID), b.getInt(o + NativeLayout.WR_OPCODE),
                    b.getInt(o + NativeLayout.WR_SEND_FLAGS), b.getInt(o + NativeLayout.WR_IMM),
                    b.getLong(o + NativeLayout.WR_REMOTE_ADDR), b.getInt(o + NativeLayout.WR_RKEY), sges)
                    : new NativeWr(b.getLong(o + NativeLayout.WR_ID), -1, 0, 0, 0, 0, sges));
            at = b.getLong(o + NativeLayout.WR_NEXT);
        }
        return out;
    }

    /** Queues a completion on the CQ a QP sends to, as the device would write it. */
    synchronized void complete(long cq, long wrId, int status, int opcode, int byteLen, int qpNum) {
        byte[] wc = new byte[NativeLayout.WC_SIZE];
        ByteBuffer b = ByteBuffer.wrap(wc).order(ByteOrder.nativeOrder());
        b.putLong(NativeLayout.WC_WR_ID, wrId).putInt(NativeLayout.WC_STATUS, status)
                .putInt(NativeLayout.WC_OPCODE, opcode).putInt(NativeLayout.WC_BYTE_LEN, byteLen)
                .putInt(NativeLayout.WC_QP_NUM, qpNum);
        completions.get(cq).add(wc);
        Boolean solicitedOnly = armedCqs.get(cq);
        if (solicitedOnly != null && (!solicitedOnly || solicited || status != 0)) {
            armedCqs.remove(cq);                         // a device signals once per arming
            cqEvents.add(cq);
            io.rdmanode.posix.Posix.libc().write(compPipe.writeFd(), new byte[] {1}, 1);
        }
    }

    /** A solicited completion (a SEND with IBV_SEND_SOLICITED), which a solicited-only arming signals. */
    synchronized void completeSolicited(long cq, long wrId, int byteLen, int qpNum) {
        solicited = true;
        try {
            complete(cq, wrId, 0, 128, byteLen, qpNum);
        } finally {
            solicited = false;
        }
    }

    private boolean solicited;
    private final io.rdmanode.posix.Pipe compPipe = io.rdmanode.posix.Posix.libc()
            .pipe2(io.rdmanode.posix.Posix.O_NONBLOCK | io.rdmanode.posix.Posix.O_CLOEXEC);
    /** Device CQs armed by ibv_req_notify_cq: handle -> solicited-only. */
    final Map<Long, Boolean> armedCqs = new HashMap<>();
    private final ArrayDeque<Long> cqEvents = new ArrayDeque<>();
    /** ibv_ack_cq_events calls: {cq, n}. */
    final List<long[]> cqAcks = java.util.Collections.synchronizedList(new ArrayList<>());

    @Override
    public synchronized void reqNotifyCq(long cq, boolean solicitedOnly) {
        armedCqs.put(cq, solicitedOnly);
    }

    @Override
    public int compFd() {
        return compPipe.readFd();
    }

    @Override
    public synchronized long getCqEvent() {
        Long cq = cqEvents.poll();
        if (cq == null) {
            return 0;
        }
        io.rdmanode.posix.Posix.libc().read(compPipe.readFd(), new byte[1], 1);
        return cq;
    }

    @Override
    public void ackCqEvents(long cq, int n) {
        cqAcks.add(new long[] {cq, n});
    }

    @Override
    public synchronized int pollCq(long cq, int n, ByteBuffer wcs) {
        ArrayDeque<byte[]> q = completions.get(cq);
        int i = 0;
        while (i < n && !q.isEmpty()) {
            wcs.put(i * NativeLayout.WC_SIZE, q.poll());
            i++;
        }
        return i;
    }

    /** A stable made-up address per buffer (the transport only adds offsets to it). */
    @Override
    public synchronized long address(ByteBuffer direct) {
        return addresses.computeIfAbsent(direct, b -> 0x7f00_0000_0000L + addresses.size() * 0x1000_0000L);
    }

    private final io.rdmanode.posix.Pipe asyncPipe = io.rdmanode.posix.Posix.libc()
            .pipe2(io.rdmanode.posix.Posix.O_NONBLOCK | io.rdmanode.posix.Posix.O_CLOEXEC);
    private final ArrayDeque<AsyncEvent> asyncQueue = new ArrayDeque<>();
    /** Events the router acknowledged, in order; and the armed limit per SRQ handle. */
    final List<AsyncEvent> acked = java.util.Collections.synchronizedList(new ArrayList<>());
    final Map<Long, Integer> srqLimits = new HashMap<>();
    private long nextEvent = 1;

    /** As the device would raise it: {@code element} is the object's handle (pointer) or the port number. */
    synchronized void raise(int type, long element) {
        asyncQueue.add(new AsyncEvent(type, element, nextEvent++));
        io.rdmanode.posix.Posix.libc().write(asyncPipe.writeFd(), new byte[] {1}, 1);
    }

    @Override
    public synchronized void armSrq(long srq, int limit) {
        calls.add("arm srq " + limit);
        srqLimits.put(srq, limit);
    }

    @Override
    public int asyncFd() {
        return asyncPipe.readFd();
    }

    @Override
    public synchronized AsyncEvent getAsyncEvent() {
        AsyncEvent e = asyncQueue.poll();
        if (e != null) {
            io.rdmanode.posix.Posix.libc().read(asyncPipe.readFd(), new byte[1], 1);
        }
        return e;
    }

    @Override
    public void ackAsyncEvent(AsyncEvent event) {
        acked.add(event);
    }

    @Override
    public void close() {
        closed = true;
        for (io.rdmanode.posix.Pipe p : List.of(asyncPipe, compPipe)) {
            io.rdmanode.posix.Posix.libc().close(p.readFd());
            io.rdmanode.posix.Posix.libc().close(p.writeFd());
        }
    }
}
