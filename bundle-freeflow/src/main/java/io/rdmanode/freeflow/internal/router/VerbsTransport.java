// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static io.rdmanode.freeflow.internal.verbs.NativeLayout.AH_ATTR_SIZE;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.AH_DGID;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.AH_DLID;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.AH_HOP_LIMIT;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.AH_IS_GLOBAL;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.AH_PORT_NUM;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.AH_SGID_INDEX;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.AH_SL;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_ACCESS_FLAGS;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_AH_DGID;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_AH_DLID;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_AH_HOP_LIMIT;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_AH_IS_GLOBAL;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_AH_PORT_NUM;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_AH_SGID_INDEX;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_CUR_QP_STATE;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_DEST_QP_NUM;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_MAX_DEST_RD_ATOMIC;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_MAX_RD_ATOMIC;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_MIN_RNR_TIMER;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_PATH_MTU;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_PORT_NUM;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_QKEY;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_QP_STATE;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_RETRY_CNT;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_RNR_RETRY;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_RQ_PSN;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_SQ_PSN;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_TIMEOUT;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.QP_ATTR_SIZE;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.RECV_WR_SIZE;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.SEND_WR_SIZE;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.SGE_ADDR;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.SGE_LENGTH;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.SGE_LKEY;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.SGE_SIZE;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WC_BYTE_LEN;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WC_FLAGS;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WC_IMM;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WC_OPCODE;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WC_QP_NUM;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WC_SIZE;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WC_SRC_QP;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WC_STATUS;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WC_WR_ID;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WR_ID;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WR_IMM;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WR_NEXT;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WR_NUM_SGE;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WR_OPCODE;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WR_REMOTE_ADDR;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WR_RKEY;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WR_SEND_FLAGS;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WR_SG_LIST;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WR_UD_AH;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WR_UD_REMOTE_QKEY;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.WR_UD_REMOTE_QPN;

import io.rdmanode.freeflow.internal.mapping.MrMappingService;
import io.rdmanode.freeflow.internal.verbs.VerbsDevice;
import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.ModifyQpRequest;
import io.rdmanode.freeflow.internal.wire.PortAttrResponse;
import io.rdmanode.freeflow.internal.wire.PostResponse;
import io.rdmanode.freeflow.internal.wire.RecvWr;
import io.rdmanode.freeflow.internal.wire.SendWr;
import io.rdmanode.freeflow.internal.wire.Sge;
import io.rdmanode.freeflow.internal.wire.WireException;
import io.rdmanode.freeflow.internal.wire.WorkCompletion;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * The verbs transport: the router's QPs are RC, UC and UD QPs on a real RDMA device, and the device moves the data.
 * Per tenant one PD on the device (created with the tenant's first QP, SRQ or MR, freed with its last); per router
 * CQ one device CQ (created with the first QP that uses it); per SRQ one device SRQ; per QP one device QP (on the
 * device SRQ when it has one), whose QPN is the one the client sees; per AH one device AH (a UD WR names it). An MR is the tenant's shm file as the router
 * maps it, registered in the tenant's PD: the client sees the device's lkey and rkey. MODIFY_QP goes to the device with the client's attributes (a GID makes the address
 * global, with this router's GID index; the path MTU is capped at the port's active MTU). A post's WRs are
 * rewritten into {@code ibv_send_wr}/{@code ibv_recv_wr} lists: an SGE's offset in the MR of its lkey becomes the
 * address in the router's mapping; a WRITE or READ's remote address, named in the remote application's space,
 * becomes the remote router's mapping of it (an MR of this router: its application base; another router's:
 * the MR mapping it announced; else unchanged). Completions are taken from a device CQ into the router's CQ (never
 * more than its depth) when the client polls and finds too few, when the device signals the CQ on the router's
 * completion channel, and before the CQ is destroyed; so polls and channel events work as with the software
 * transport, and no thread polls device CQs nobody asked about. A client's REQ_NOTIFY_CQ arms the device CQ
 * ({@code ibv_req_notify_cq}, solicited-only as asked): its event is answered when the device signals
 * ({@link DeviceEvents}), not on a timer. Called with the router's monitor held.
 */
final class VerbsTransport implements Transport {
    private static final PostResponse OK = new PostResponse(0, 0);
    private static final int POLL_BATCH = 64;
    private static final int HOP_LIMIT = 64;

    private final VerbsDevice device;
    private final int gidIndex;
    private final VerbsDevice.Port port;
    /** The device's limits: they do not change while it is open. */
    private final VerbsDevice.Attr deviceAttr;
    private final QpnSpace qpns;
    private final Completions completions;
    private final RouterStats stats;
    private final Supplier<Limits> limits;
    private final Supplier<Optional<MrMappingService>> mapping;

    private final Map<Tenant, Counted> pds = new IdentityHashMap<>();
    private final Map<CompletionQueue, Counted> cqs = new IdentityHashMap<>();
    private final Map<QueuePair, VerbsDevice.Qp> qps = new IdentityHashMap<>();
    /**
     * Where each connected QP sends: to this device's own port (its address names the GID it sends from, or the port's
     * LID), or to a peer whose IP address its destination GID may carry. An rkey names an MR of the destination's
     * device, and keys are unique on one device only (rxe and mlx5 keys are an object index and one byte), so a QP
     * towards this port looks among this router's MRs first, any other among the peer's announcements first.
     */
    private final Map<QueuePair, Destination> destinations = new IdentityHashMap<>();
    private final Map<SharedReceiveQueue, Long> srqs = new IdentityHashMap<>();
    private final Map<AddressHandle, Long> ahs = new IdentityHashMap<>();
    /** Registered MRs by the device's keys (unique on the device). */
    private final Map<Integer, Registered> byLkey = new HashMap<>();
    private final Map<Integer, Registered> byRkey = new HashMap<>();
    /**
     * Device pointer -> the router's QP, CQ or SRQ, for the async event thread, which reads it without the monitor.
     * An entry goes only after its device object is destroyed: that waits for the acknowledgement of every event of
     * the object, so an event being handled always finds its own object here, never a successor at the same address.
     */
    private final java.util.concurrent.ConcurrentHashMap<Long, Object> byPointer = new java.util.concurrent.ConcurrentHashMap<>();
    private final DeviceEvents events;

    private ByteBuffer wrs = direct(16 * SEND_WR_SIZE);
    private final ByteBuffer wcs = direct(POLL_BATCH * WC_SIZE);
    private final ByteBuffer attr = direct(Math.max(QP_ATTR_SIZE, AH_ATTR_SIZE));

    /** A device object and how many router objects use it. */
    private static final class Counted {
        final long handle;
        int users;

        Counted(long handle) {
            this.handle = handle;
        }
    }

    private record Registered(Tenant tenant, long handle, long base, int lkey, int rkey) {
    }

    /** A QP's destination: this port, or a peer with the IP address its GID carries (null when it carries none). */
    private record Destination(boolean thisPort, InetAddress peer) {
    }

    VerbsTransport(VerbsDevice device, int gidIndex, QpnSpace qpns, Supplier<Limits> limits, Completions completions,
                   RouterStats stats, Supplier<Optional<MrMappingService>> mapping, DeviceEvents.Sink async) {
        this.device = device;
        this.gidIndex = gidIndex;
        this.port = device.port();
        this.deviceAttr = device.attr();
        this.qpns = qpns;
        this.limits = limits;
        this.completions = completions;
        this.stats = stats;
        this.mapping = mapping;
        this.events = new DeviceEvents(device, byPointer::get, async);
    }

    /** Completion events the device signalled, and the acknowledgement calls for them (one per CQ per round). */
    long cqEvents() {
        return events.cqEvents();
    }

    long cqAcks() {
        return events.cqAcks();
    }

    /** Async events read from the device so far. */
    long asyncEventsReceived() {
        return events.received();
    }

    private static ByteBuffer direct(int size) {
        return ByteBuffer.allocateDirect(size).order(ByteOrder.nativeOrder());
    }

    VerbsDevice device() {
        return device;
    }

    /** RC, UC and UD (with its address handles). */
    @Override
    public boolean supports(int qpType) {
        return qpType == QueuePair.TYPE_RC || qpType == QueuePair.TYPE_UC || qpType == QueuePair.TYPE_UD;
    }

    @Override
    public Optional<VerbsDevice.Attr> deviceAttr() {
        return Optional.of(deviceAttr);
    }

    @Override
    public PortAttrResponse port() {
        VerbsDevice.Port p = device.port();
        return new PortAttrResponse(p.state(), p.lid(), p.gidTblLen(), p.maxMtu(), p.activeMtu());
    }

    // ---- objects

    private long pd(Tenant t) {
        Counted pd = pds.get(t);
        if (pd == null) {
            pd = new Counted(device.allocPd());
            pds.put(t, pd);
        }
        pd.users++;
        return pd.handle;
    }

    private void unrefPd(Tenant t) {
        Counted pd = pds.get(t);
        if (pd != null && --pd.users == 0) {
            pds.remove(t);
            release(() -> device.deallocPd(pd.handle), "PD of " + t.id());
        }
    }

    private long cq(CompletionQueue cq) {
        Counted c = cqs.get(cq);
        if (c == null) {
            c = new Counted(device.createCq(Math.max(1, cq.depth)));
            cqs.put(cq, c);
            byPointer.put(c.handle, cq);
            if (cq.armed) {
                device.reqNotifyCq(c.handle, cq.solicitedOnly);   // armed before its first QP made the device CQ
            }
        }
        c.users++;
        return c.handle;
    }

    private void unrefCq(CompletionQueue cq) {
        Counted c = cqs.get(cq);
        if (c != null && --c.users == 0) {
            drain(cq, c);
            cqs.remove(cq);
            release(() -> device.destroyCq(c.handle), "CQ " + cq.handle + " of " + cq.tenant.id());
            byPointer.remove(c.handle);
        }
    }

    @Override
    public void created(QueuePair qp) {
        long srq = 0;
        if (qp.srq != null) {
            Long s = srqs.get(qp.srq);
            if (s == null) {
                throw new WireException(Errno.EINVAL, "SRQ " + qp.srq.handle + " has no device SRQ");
            }
            srq = s;
        }
        long pd = pd(qp.tenant);
        boolean sendRef = false;
        boolean recvRef = false;
        try {
            long scq = cq(qp.sendCq);
            sendRef = true;
            long rcq = cq(qp.recvCq);
            recvRef = true;
            // A QP on an SRQ has no receive queue of its own (the device ignores or refuses its receive capacities).
            VerbsDevice.Qp q = device.createQp(pd, scq, rcq, srq, qp.type, qp.maxSendWr,
                    srq != 0 ? 0 : Math.max(1, qp.maxRecvWr), qp.maxSendSge, srq != 0 ? 0 : qp.maxRecvSge,
                    qp.maxInline, qp.sqSigAll);
            qps.put(qp, q);
            byPointer.put(q.handle(), qp);
            qp.qpn = q.qpn();
        } catch (RuntimeException e) {
            if (recvRef) {
                unrefCq(qp.recvCq);
            }
            if (sendRef) {
                unrefCq(qp.sendCq);
            }
            unrefPd(qp.tenant);
            throw e;
        }
    }

    @Override
    public void destroyed(QueuePair qp) {
        VerbsDevice.Qp q = qps.remove(qp);
        destinations.remove(qp);
        if (q == null) {
            return;
        }
        release(() -> device.destroyQp(q.handle()), "QP " + qp.qpn + " of " + qp.tenant.id());
        byPointer.remove(q.handle());
        unrefCq(qp.sendCq);
        unrefCq(qp.recvCq);
        unrefPd(qp.tenant);
    }

    @Override
    public void srqCreated(SharedReceiveQueue srq) {
        long pd = pd(srq.tenant);
        try {
            long s = device.createSrq(pd, Math.max(1, srq.maxWr), Math.max(1, srq.maxSge));
            srqs.put(srq, s);
            byPointer.put(s, srq);
        } catch (RuntimeException e) {
            unrefPd(srq.tenant);
            throw e;
        }
    }

    @Override
    public void srqResized(SharedReceiveQueue srq, int maxWr) {
        Long s = srqs.get(srq);
        if (s != null) {
            device.resizeSrq(s, maxWr);
        }
    }

    @Override
    public void srqArmed(SharedReceiveQueue srq, int limit) {
        Long s = srqs.get(srq);
        if (s != null) {
            device.armSrq(s, limit);
        }
    }

    /** After the QPs on it (the router refuses to destroy an SRQ in use), so the device frees it. */
    @Override
    public void srqDestroyed(SharedReceiveQueue srq) {
        Long s = srqs.remove(srq);
        if (s == null) {
            return;
        }
        release(() -> device.destroySrq(s), "SRQ " + srq.handle + " of " + srq.tenant.id());
        byPointer.remove(s);
        unrefPd(srq.tenant);
    }

    /**
     * One device AH in the tenant's PD: the client's destination (GID, LID, SL), sourced from this router's GID index
     * (the client's sgid_index names a GID of its own sysfs view) with hop limit 64, as MODIFY_QP's address.
     */
    @Override
    public void ahCreated(AddressHandle ah) {
        ByteBuffer a = attr;
        clear(a, 0, AH_ATTR_SIZE);
        a.put(AH_DGID, ah.dgid).put(AH_SGID_INDEX, (byte) gidIndex).put(AH_HOP_LIMIT, (byte) HOP_LIMIT)
                .putShort(AH_DLID, (short) ah.dlid).put(AH_SL, (byte) ah.sl)
                .put(AH_IS_GLOBAL, (byte) (ah.global || nonZero(ah.dgid) ? 1 : 0)).put(AH_PORT_NUM, (byte) 1);
        long pd = pd(ah.tenant);
        try {
            ahs.put(ah, device.createAh(pd, a));
        } catch (RuntimeException e) {
            unrefPd(ah.tenant);
            throw e;
        }
    }

    @Override
    public void ahDestroyed(AddressHandle ah) {
        Long h = ahs.remove(ah);
        if (h == null) {
            return;
        }
        release(() -> device.destroyAh(h), "AH " + ah.handle + " of " + ah.tenant.id());
        unrefPd(ah.tenant);
    }

    private static boolean nonZero(byte[] b) {
        boolean any = false;
        for (byte x : b) {
            any |= x != 0;
        }
        return any;
    }

    @Override
    public Keys register(Tenant t, int access, ShmFile file) {
        long pd = pd(t);
        try {
            long base = device.address(file.buffer());
            VerbsDevice.Mr mr = device.regMr(pd, base, file.size(), access);
            Registered r = new Registered(t, mr.handle(), base, mr.lkey(), mr.rkey());
            byLkey.put(mr.lkey(), r);
            if ((access & (MemoryRegion.REMOTE_WRITE | MemoryRegion.REMOTE_READ)) != 0) {
                byRkey.put(mr.rkey(), r);
            }
            return new Keys(mr.lkey(), mr.rkey());
        } catch (RuntimeException e) {
            unrefPd(t);
            throw e;
        }
    }

    @Override
    public OptionalLong registeredAt(MemoryRegion mr) {
        Registered r = byLkey.get(mr.key);
        return r == null ? OptionalLong.empty() : OptionalLong.of(r.base());
    }

    @Override
    public void deregister(MemoryRegion mr) {
        Registered r = byLkey.remove(mr.key);
        if (r == null) {
            return;
        }
        byRkey.remove(r.rkey(), r);
        release(() -> device.deregMr(r.handle()), "MR " + Integer.toUnsignedString(r.lkey()) + " of " + mr.tenant.id());
        unrefPd(r.tenant());
    }

    /** The event thread first: it must not read a closed context. */
    @Override
    public void close() {
        events.close();
        device.close();
    }

    /**
     * Frees a device object the router has already forgotten: a refusal by the device is logged, not thrown (the
     * router's tables are the authority and stay consistent; closing the device frees what is left).
     */
    private void release(Runnable call, String what) {
        try {
            call.run();
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(VerbsTransport.class).warn("freeflow: freeing the {} on {} failed: {}",
                    what, device.name(), e.getMessage());
        }
    }

    // ---- control

    @Override
    public void modify(QueuePair qp, ModifyQpRequest r) {
        VerbsDevice.Qp q = live(qp);
        int mask = r.attrMask();
        ByteBuffer a = attr;
        for (int i = 0; i < QP_ATTR_SIZE; i += 8) {
            a.putLong(i, 0L);
        }
        int mtu = r.pathMtu();
        if ((mask & QpTransitions.PATH_MTU) != 0 && port.activeMtu() > 0) {
            mtu = Math.min(mtu, port.activeMtu());
        }
        a.putInt(ATTR_QP_STATE, r.qpState()).putInt(ATTR_CUR_QP_STATE, r.curQpState()).putInt(ATTR_PATH_MTU, mtu)
                .putInt(ATTR_QKEY, (int) r.qkey()).putInt(ATTR_RQ_PSN, (int) r.rqPsn())
                .putInt(ATTR_SQ_PSN, (int) r.sqPsn()).putInt(ATTR_DEST_QP_NUM, r.destQpNum())
                .putInt(ATTR_ACCESS_FLAGS, r.accessFlags());
        boolean global = nonZero(r.dgid());
        a.put(ATTR_AH_DGID, r.dgid());
        // The rdma_cm route's source GID for a QP it connects (the peer expects that one); else the configured one.
        a.put(ATTR_AH_SGID_INDEX, (byte) (qp.routeGidIndex >= 0 ? qp.routeGidIndex : gidIndex))
                .put(ATTR_AH_HOP_LIMIT, (byte) HOP_LIMIT).putShort(ATTR_AH_DLID, (short) r.dlid()).put(ATTR_AH_IS_GLOBAL, (byte) (global ? 1 : 0))
                .put(ATTR_AH_PORT_NUM, (byte) Math.max(1, r.portNum()));
        a.put(ATTR_MAX_RD_ATOMIC, (byte) r.maxRdAtomic()).put(ATTR_MAX_DEST_RD_ATOMIC, (byte) r.maxDestRdAtomic())
                .put(ATTR_MIN_RNR_TIMER, (byte) r.minRnrTimer()).put(ATTR_PORT_NUM, (byte) r.portNum())
                .put(ATTR_TIMEOUT, (byte) r.timeout()).put(ATTR_RETRY_CNT, (byte) r.retryCnt())
                .put(ATTR_RNR_RETRY, (byte) r.rnrRetry());
        device.modifyQp(q.handle(), a, mask);
        if ((mask & QpTransitions.AV) != 0) {
            boolean thisPort = global
                    ? Arrays.equals(r.dgid(), device.gid(qp.routeGidIndex >= 0 ? qp.routeGidIndex : gidIndex))
                    : r.dlid() == device.port().lid();
            destinations.put(qp, new Destination(thisPort, global ? ipOf(r.dgid()) : null));
        }
        if ((mask & QpTransitions.STATE) != 0) {
            qp.state = r.qpState();
        }
        qp.accept(r, mtu);
    }

    private VerbsDevice.Qp live(QueuePair qp) {
        VerbsDevice.Qp q = qps.get(qp);
        if (q == null) {
            throw new WireException(Errno.EINVAL, "QP " + qp.qpn + " has no device QP");
        }
        return q;
    }

    // ---- posting

    @Override
    public PostResponse postSend(QueuePair qp, List<SendWr> list) {
        VerbsDevice.Qp q = live(qp);
        int n = list.size();
        int sges = 0;
        for (SendWr wr : list) {
            sges += wr.sges().length;
        }
        ByteBuffer b = scratch(n * SEND_WR_SIZE + sges * SGE_SIZE);
        long base = device.address(b);
        int sgeAt = n * SEND_WR_SIZE;
        for (int i = 0; i < n; i++) {
            SendWr wr = list.get(i);
            if (wr.opcode() < SendWr.OP_RDMA_WRITE || wr.opcode() > SendWr.OP_RDMA_READ
                    || wr.sges().length > qp.maxSendSge) {
                return new PostResponse(Errno.EINVAL, i + 1);
            }
            int at = i * SEND_WR_SIZE;
            clear(b, at, SEND_WR_SIZE);
            if (!putSges(qp.tenant, qp.pd, wr.sges(), b, sgeAt)) {
                return new PostResponse(Errno.EINVAL, i + 1);
            }
            b.putLong(at + WR_ID, wr.wrId()).putLong(at + WR_NEXT, i + 1 < n ? base + (i + 1L) * SEND_WR_SIZE : 0L)
                    .putLong(at + WR_SG_LIST, wr.sges().length == 0 ? 0L : base + sgeAt)
                    .putInt(at + WR_NUM_SGE, wr.sges().length).putInt(at + WR_OPCODE, wr.opcode())
                    .putInt(at + WR_SEND_FLAGS, wr.sendFlags()).putInt(at + WR_IMM, wr.immData());
            if (qp.type == QueuePair.TYPE_UD) {
                // UD: SENDs only, to the AH the body names for this WR (the tenant's, in the QP's PD)
                AddressHandle ah = qp.tenant.ahs.get(wr.ah());
                Long dev = ah == null ? null : ahs.get(ah);
                if (dev == null || ah.pd != qp.pd
                        || (wr.opcode() != SendWr.OP_SEND && wr.opcode() != SendWr.OP_SEND_WITH_IMM)) {
                    return new PostResponse(Errno.EINVAL, i + 1);
                }
                b.putLong(at + WR_UD_AH, dev).putInt(at + WR_UD_REMOTE_QPN, wr.rkey())
                        .putInt(at + WR_UD_REMOTE_QKEY, wr.remoteQkey());
            } else if (wr.opcode() != SendWr.OP_SEND && wr.opcode() != SendWr.OP_SEND_WITH_IMM) {
                b.putLong(at + WR_REMOTE_ADDR, remote(qp, wr.rkey(), wr.remoteAddr())).putInt(at + WR_RKEY, wr.rkey());
            }
            sgeAt += wr.sges().length * SGE_SIZE;
        }
        if (n == 0) {
            return OK;
        }
        VerbsDevice.Posted p = device.postSend(q.handle(), b);
        return p.errno() == 0 ? OK : new PostResponse(p.errno(), p.badWr());
    }

    @Override
    public PostResponse postRecv(QueuePair qp, List<RecvWr> list) {
        VerbsDevice.Qp q = live(qp);
        if (qp.srq != null) {
            return new PostResponse(Errno.EINVAL, 1);             // a QP on an SRQ has no receive queue of its own
        }
        return postRecvs(qp.tenant, qp.pd, qp.maxRecvSge, list, q.handle(), false);
    }

    /** POST_SRQ_RECV: the WRs as an {@code ibv_recv_wr} list on the device SRQ, checked as a QP's receives are. */
    @Override
    public PostResponse postSrqRecv(SharedReceiveQueue srq, List<RecvWr> list) {
        Long s = srqs.get(srq);
        if (s == null) {
            return new PostResponse(Errno.EINVAL, 1);
        }
        return postRecvs(srq.tenant, srq.pd, srq.maxSge, list, s, true);
    }

    /**
     * The receive WRs as a linked {@code ibv_recv_wr} list posted to the device QP or SRQ {@code handle}; EINVAL
     * naming the first WR with more than {@code maxSge} SGEs or an SGE outside the tenant's MRs of the PD.
     */
    private PostResponse postRecvs(Tenant tenant, int pd, int maxSge, List<RecvWr> list, long handle, boolean srq) {
        int n = list.size();
        int sges = 0;
        for (RecvWr wr : list) {
            sges += wr.sges().length;
        }
        ByteBuffer b = scratch(n * RECV_WR_SIZE + sges * SGE_SIZE);
        long base = device.address(b);
        int sgeAt = n * RECV_WR_SIZE;
        for (int i = 0; i < n; i++) {
            RecvWr wr = list.get(i);
            int at = i * RECV_WR_SIZE;
            clear(b, at, RECV_WR_SIZE);
            if (wr.sges().length > maxSge || !putSges(tenant, pd, wr.sges(), b, sgeAt)) {
                return new PostResponse(Errno.EINVAL, i + 1);
            }
            b.putLong(at + WR_ID, wr.wrId()).putLong(at + WR_NEXT, i + 1 < n ? base + (i + 1L) * RECV_WR_SIZE : 0L)
                    .putLong(at + WR_SG_LIST, wr.sges().length == 0 ? 0L : base + sgeAt)
                    .putInt(at + WR_NUM_SGE, wr.sges().length);
            sgeAt += wr.sges().length * SGE_SIZE;
        }
        if (n == 0) {
            return OK;
        }
        VerbsDevice.Posted p = srq ? device.postSrqRecv(handle, b) : device.postRecv(handle, b);
        return p.errno() == 0 ? OK : new PostResponse(p.errno(), p.badWr());
    }

    /**
     * Writes the SGEs as {@code ibv_sge}s: the MR of each lkey must be the tenant's, in the PD, and hold the
     * range; its address is then the router's mapping of it. False when one does not.
     */
    private boolean putSges(Tenant tenant, int pd, Sge[] sges, ByteBuffer b, int at) {
        for (int j = 0; j < sges.length; j++) {
            Sge s = sges[j];
            MemoryRegion mr = tenant.mrsByKey.get(s.lkey());
            Registered r = byLkey.get(s.lkey());
            if (mr == null || r == null || r.tenant() != tenant || mr.deregistered || mr.pd != pd
                    || !mr.contains(s.offset(), s.len())) {
                return false;
            }
            int o = at + j * SGE_SIZE;
            b.putLong(o + SGE_ADDR, r.base() + s.offset()).putInt(o + SGE_LENGTH, s.length()).putInt(o + SGE_LKEY, r.lkey());
        }
        return true;
    }

    /**
     * A WRITE or READ's remote address as the remote device knows it: an MR of this router is registered at the
     * router's mapping, named by the client from its application base; another router's comes from its MR mapping
     * announcement; an unknown key passes unchanged (the device then answers with a remote access error). Keys are
     * unique on one device only: a QP towards this port looks among this router's MRs first, any other QP among the
     * announcements first, so an rkey of a peer's device that equals one of ours is not translated as ours.
     */
    long remote(QueuePair qp, int rkey, long remoteAddr) {
        Destination d = destinations.get(qp);
        OptionalLong t;
        if (d != null && d.thisPort()) {
            t = local(rkey, remoteAddr);
            if (t.isEmpty()) {
                t = announced(rkey, remoteAddr, null);
            }
        } else {
            t = announced(rkey, remoteAddr, d == null ? null : d.peer());
            if (t.isEmpty()) {
                t = local(rkey, remoteAddr);     // a loopback QP addressed through another GID of this port
            }
        }
        return t.orElse(remoteAddr);
    }

    /**
     * The IP address a GID carries: IPv4 when IPv4-mapped (RoCE v2 over IPv4; {@link InetAddress#getByAddress}
     * returns those as {@code Inet4Address}), else the GID read as IPv6 (RoCE v2 over IPv6; a link-local or
     * InfiniBand GID simply matches no listed host).
     */
    static InetAddress ipOf(byte[] gid) {
        try {
            return InetAddress.getByAddress(gid);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("a 16-byte GID is an IPv6 address", e);
        }
    }

    private OptionalLong local(int rkey, long remoteAddr) {
        Registered local = byRkey.get(rkey);
        if (local == null) {
            return OptionalLong.empty();
        }
        MemoryRegion mr = local.tenant().mrsByKey.get(local.lkey());
        long appBase = mr == null ? 0 : mr.appBase;
        return OptionalLong.of(local.base() + (remoteAddr - appBase));
    }

    private OptionalLong announced(int rkey, long remoteAddr, InetAddress peer) {
        Optional<MrMappingService> m = mapping.get();
        return m.isPresent() ? m.get().translate(rkey, remoteAddr, peer) : OptionalLong.empty();
    }

    private ByteBuffer scratch(int size) {
        if (wrs.capacity() < size) {
            wrs = direct(Math.max(size, wrs.capacity() * 2));
        }
        return wrs;
    }

    private static void clear(ByteBuffer b, int at, int size) {
        for (int i = 0; i < size; i += 8) {
            b.putLong(at + i, 0L);
        }
    }

    // ---- completions

    /** Takes the device CQ's completions when the router's CQ holds fewer than the poll may take. */
    @Override
    public void refill(CompletionQueue cq, int ne) {
        Counted c = cqs.get(cq);
        if (c != null && cq.entries.size() < limits.get().completionsFor(ne)) {
            drain(cq, c);
        }
    }

    @Override
    public int poll(CompletionQueue cq, int ne, ByteBuffer out, int at) {
        int max = limits.get().completionsFor(ne);
        int n = 0;
        while (n < max) {
            WorkCompletion wc = cq.entries.poll();
            if (wc == null) {
                break;
            }
            wc.encode(out, at + n * WorkCompletion.SIZE);
            n++;
        }
        return n;
    }

    /** Nothing runs on the poller's timer: completions are taken on demand and on the device's signal. */
    @Override
    public boolean timersPending() {
        return false;
    }

    @Override
    public void tick(long now) {
    }

    /**
     * REQ_NOTIFY_CQ: arms the device CQ, then takes what it already holds (the device signals only completions after
     * the arming; the router's arm fires for what it then holds, unless solicited-only).
     */
    @Override
    public void cqArmed(CompletionQueue cq) {
        Counted c = cqs.get(cq);
        if (c != null) {
            device.reqNotifyCq(c.handle, cq.solicitedOnly);
            drain(cq, c);
        }
    }

    /**
     * The device signalled the CQ (it was armed): its completions move in and the router's CQ fires, solicited-only or
     * not, since the device judged that; a CQ destroyed meanwhile is ignored.
     */
    void signalled(CompletionQueue cq) {
        Counted c = cqs.get(cq);
        if (c == null) {
            return;
        }
        drain(cq, c);
        completions.added(cq);
    }

    /**
     * Moves what the device completed into the router's CQ. An armed CQ fires here only when not solicited-only:
     * whether a completion is solicited is the device's to say, through its signal ({@link #signalled}).
     */
    private void drain(CompletionQueue cq, Counted c) {
        boolean added = false;
        for (;;) {
            int room = Math.min(POLL_BATCH, cq.depth - cq.entries.size());
            if (room <= 0) {
                break;
            }
            int n = device.pollCq(c.handle, room, wcs);
            if (n < 0) {
                org.slf4j.LoggerFactory.getLogger(VerbsTransport.class).warn("freeflow ibv_poll_cq on {} answered {}",
                        device.name(), n);
                break;
            }
            for (int i = 0; i < n; i++) {
                int o = i * WC_SIZE;
                WorkCompletion wc = new WorkCompletion(wcs.getLong(o + WC_WR_ID), wcs.getInt(o + WC_STATUS),
                        wcs.getInt(o + WC_OPCODE), wcs.getInt(o + WC_BYTE_LEN), wcs.getInt(o + WC_IMM),
                        wcs.getInt(o + WC_QP_NUM), wcs.getInt(o + WC_SRC_QP), wcs.getInt(o + WC_FLAGS));
                cq.entries.add(wc);
                stats.completions.increment();
                if (wc.status() != WorkCompletion.SUCCESS) {
                    stats.errorCompletions.increment();
                    QueuePair qp = qpns.get(wc.qpNum());
                    if (qp != null && wc.status() != WorkCompletion.WR_FLUSH_ERR) {
                        qp.state = QueuePair.ERR;             // the device moved it there
                    }
                }
                added = true;
            }
            if (n < room) {
                break;
            }
        }
        if (added && !cq.solicitedOnly) {
            completions.added(cq);
        }
    }
}
