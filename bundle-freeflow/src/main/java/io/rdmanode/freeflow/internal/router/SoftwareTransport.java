// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static io.rdmanode.freeflow.internal.wire.WorkCompletion.LOC_LEN_ERR;
import static io.rdmanode.freeflow.internal.wire.WorkCompletion.LOC_PROT_ERR;
import static io.rdmanode.freeflow.internal.wire.WorkCompletion.REM_ACCESS_ERR;
import static io.rdmanode.freeflow.internal.wire.WorkCompletion.REM_INV_REQ_ERR;
import static io.rdmanode.freeflow.internal.wire.WorkCompletion.RETRY_EXC_ERR;
import static io.rdmanode.freeflow.internal.wire.WorkCompletion.RNR_RETRY_EXC_ERR;
import static io.rdmanode.freeflow.internal.wire.WorkCompletion.SUCCESS;
import static io.rdmanode.freeflow.internal.wire.WorkCompletion.WR_FLUSH_ERR;

import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.ModifyQpRequest;
import io.rdmanode.freeflow.internal.wire.PostResponse;
import io.rdmanode.freeflow.internal.wire.RecvWr;
import io.rdmanode.freeflow.internal.wire.SendWr;
import io.rdmanode.freeflow.internal.wire.Sge;
import io.rdmanode.freeflow.internal.wire.WireException;
import io.rdmanode.freeflow.internal.wire.WorkCompletion;
import java.nio.ByteBuffer;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The software RC transport within one host: SEND/RECV (+IMM), RDMA WRITE (+IMM) and READ between QPs of this
 * router, as one copy from the source MR file to the destination MR file. A WR completes only once its data is
 * placed (RC = acknowledged); the send queue is FIFO, so completions on a CQ come in post order per QP. A SEND or
 * WRITE_WITH_IMM finding no receive posted is RNR-NAKed: retried after the responder's min_rnr_timer (or as soon
 * as a receive is posted), rnr_retry times (7 = forever), then RNR_RETRY_EXC_ERR. Any error moves the QP to ERR,
 * which flushes what is left with WR_FLUSH_ERR. UC QPs move data the same way but nothing is acknowledged: a
 * message with no receive posted, no connected peer or a bad remote key is dropped and the sender still completes
 * successfully; RDMA READ is refused at post time. Called with the router's monitor held.
 */
final class SoftwareTransport implements Transport {
    private final QpnSpace qpns;
    private final Supplier<Limits> limits;
    private final Transport.Completions completions;
    private final DeviceEvents.Sink async;
    private final RouterStats stats;
    private static final PostResponse OK = new PostResponse(0, 0);
    /** QPs whose SQ head waits for an RNR retry. */
    private final Set<QueuePair> rnrWaiting = new LinkedHashSet<>();
    /** rnrWaiting is not empty; read by the poller thread without the router lock, after every scan. */
    private volatile boolean timersArmed;

    SoftwareTransport(QpnSpace qpns, Supplier<Limits> limits, Transport.Completions completions, RouterStats stats,
                      DeviceEvents.Sink async) {
        this.async = async;
        this.qpns = qpns;
        this.limits = limits;
        this.completions = completions;
        this.stats = stats;
    }

    /**
     * Takes the receive an incoming message consumes; from an SRQ armed with a limit, one that leaves fewer than the
     * limit posted fires SRQ_LIMIT_REACHED for its tenant (once: the router disarms it), as a device does.
     */
    private RecvWr take(QueuePair qp) {
        RecvWr r = qp.receives().poll();
        SharedReceiveQueue srq = qp.srq;
        if (srq != null && srq.limit > 0 && srq.rq.size() < srq.limit) {
            async.event(AsyncEvents.SRQ_LIMIT_REACHED, srq, 0);
        }
        return r;
    }

    /** RC and UC: the software transport has no datagram QPs. */
    @Override
    public boolean supports(int qpType) {
        return qpType == QueuePair.TYPE_RC || qpType == QueuePair.TYPE_UC;
    }

    /** Nothing to create: the QP's queues are the router's objects. */
    @Override
    public void created(QueuePair qp) {
    }

    @Override
    public void destroyed(QueuePair qp) {
        unwait(qp);
    }

    // ---- control

    @Override
    public void modify(QueuePair qp, ModifyQpRequest r) {
        int to = QpTransitions.check(qp, r);
        if ((r.attrMask() & QpTransitions.PORT) != 0 && r.portNum() != 1) {
            throw new WireException(Errno.EINVAL, "port " + r.portNum() + ": the router has port 1 only");
        }
        qp.accept(r, r.pathMtu());
        if (to == QueuePair.ERR) {
            toError(qp);
        } else if (to == QueuePair.RESET) {
            qp.sq.clear();
            qp.rq.clear();
            unwait(qp);
            qp.state = QueuePair.RESET;
        } else {
            qp.state = to;
            if (to == QueuePair.RTS) {
                progress(qp);
            }
        }
    }

    private void unwait(QueuePair qp) {
        if (qp.rnrWaiting) {
            qp.rnrWaiting = false;
            rnrWaiting.remove(qp);
            timersArmed = !rnrWaiting.isEmpty();
        }
    }

    // ---- posting

    @Override
    public PostResponse postSend(QueuePair qp, List<SendWr> wrs) {
        if (qp.state < QueuePair.RTS && qp.state != QueuePair.ERR) {
            return new PostResponse(Errno.EINVAL, 1);
        }
        for (int i = 0; i < wrs.size(); i++) {
            SendWr wr = wrs.get(i);
            if (wr.opcode() < SendWr.OP_RDMA_WRITE || wr.opcode() > SendWr.OP_RDMA_READ
                    || (wr.opcode() == SendWr.OP_RDMA_READ && !qp.reliable())) {
                return new PostResponse(Errno.EINVAL, i + 1);
            }
            if (wr.sges().length > qp.maxSendSge) {
                return new PostResponse(Errno.EINVAL, i + 1);
            }
            if (qp.sq.size() >= qp.maxSendWr) {
                return new PostResponse(Errno.ENOMEM, i + 1);
            }
            qp.sq.add(wr);
            if (qp.state == QueuePair.ERR) {
                flush(qp);
            }
        }
        progress(qp);
        return OK;
    }

    @Override
    public PostResponse postRecv(QueuePair qp, List<RecvWr> wrs) {
        if (qp.state == QueuePair.RESET || qp.srq != null) {
            return new PostResponse(Errno.EINVAL, 1);             // a QP with an SRQ has no receive queue of its own
        }
        for (int i = 0; i < wrs.size(); i++) {
            RecvWr wr = wrs.get(i);
            if (wr.sges().length > qp.maxRecvSge) {
                return new PostResponse(Errno.EINVAL, i + 1);
            }
            if (qp.rq.size() >= qp.maxRecvWr) {
                return new PostResponse(Errno.ENOMEM, i + 1);
            }
            qp.rq.add(wr);
        }
        if (qp.state == QueuePair.ERR) {
            flush(qp);
            return OK;
        }
        // A receive is what an RNR-waiting requester needs: retry it now rather than at its timer.
        if (timersArmed) {
            QueuePair requester = qp.destQpn >= 0 ? qpns.get(qp.destQpn) : null;
            if (requester != null && requester.rnrWaiting) {
                unwait(requester);
                progress(requester);
            }
        }
        return OK;
    }

    /**
     * POST_SRQ_RECV: receives for every QP of the SRQ, in order. A requester waiting out an RNR on one of those QPs
     * is retried at once, as after a POST_RECV.
     */
    @Override
    public PostResponse postSrqRecv(SharedReceiveQueue srq, List<RecvWr> wrs) {
        for (int i = 0; i < wrs.size(); i++) {
            RecvWr wr = wrs.get(i);
            if (wr.sges().length > srq.maxSge) {
                return new PostResponse(Errno.EINVAL, i + 1);
            }
            if (srq.rq.size() >= srq.maxWr) {
                return new PostResponse(Errno.ENOMEM, i + 1);
            }
            srq.rq.add(wr);
        }
        for (QueuePair requester : rnrWaiting.toArray(new QueuePair[0])) {
            QueuePair responder = qpns.get(requester.destQpn);
            if (responder != null && responder.srq == srq) {
                unwait(requester);
                progress(requester);
            }
        }
        return OK;
    }

    /** Moves up to ne completions into out at offset at; returns how many. */
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

    // ---- the transport

    private enum Outcome { DONE, RNR, FAILED }

    private void progress(QueuePair qp) {
        while (qp.state == QueuePair.RTS && !qp.sq.isEmpty()) {
            if (qp.rnrWaiting) {
                return;
            }
            SendWr wr = qp.sq.peek();
            Outcome o = execute(qp, wr);
            if (o == Outcome.RNR) {
                return;
            }
            qp.sq.poll();
            qp.rnrNaks = 0;
            if (o == Outcome.FAILED) {
                toError(qp);
                return;
            }
        }
    }

    /** The connected QP by QPN: the cached one while it still is that QPN and alive, else from the table. */
    private QueuePair peer(QueuePair qp) {
        QueuePair p = qp.peerCache;
        if (p != null && p.qpn == qp.destQpn && !p.destroyed) {
            return p;
        }
        p = qpns.get(qp.destQpn);
        qp.peerCache = p;
        return p;
    }

    private Outcome execute(QueuePair qp, SendWr wr) {
        QueuePair peer = peer(qp);
        if (peer == null || peer.destQpn != qp.qpn || (peer.state != QueuePair.RTR && peer.state != QueuePair.RTS)) {
            // Nobody answers: a NIC would exhaust its transport retries.
            return qp.reliable() ? fail(qp, wr, RETRY_EXC_ERR, 0) : dropped(qp, wr, length(wr));
        }
        if (peer.type != qp.type) {
            // An RC and a UC QP naming each other: the responder drops every packet of the other transport.
            return qp.reliable() ? fail(qp, wr, RETRY_EXC_ERR, 0) : dropped(qp, wr, length(wr));
        }
        long total = 0;
        int localAccess = wr.opcode() == SendWr.OP_RDMA_READ ? MemoryRegion.LOCAL_WRITE : 0;
        MemoryRegion[] local = new MemoryRegion[wr.sges().length];
        for (int i = 0; i < local.length; i++) {
            Sge s = wr.sges()[i];
            local[i] = lookup(qp, s, localAccess);
            if (local[i] == null) {
                return fail(qp, wr, LOC_PROT_ERR, 0);
            }
            total += s.len();
        }
        switch (wr.opcode()) {
            case SendWr.OP_SEND, SendWr.OP_SEND_WITH_IMM -> {
                RecvWr recv = peer.receives().peek();
                if (recv == null) {
                    return qp.reliable() ? rnr(qp, wr, peer) : dropped(qp, wr, total);
                }
                MemoryRegion[] remote = new MemoryRegion[recv.sges().length];
                long room = 0;
                for (int i = 0; i < remote.length; i++) {
                    remote[i] = lookup(peer, recv.sges()[i], MemoryRegion.LOCAL_WRITE);
                    if (remote[i] == null) {
                        take(peer);
                        complete(peer.recvCq, recv.wrId(), LOC_PROT_ERR, WorkCompletion.WC_RECV, 0, 0, peer, qp.qpn, 0);
                        toError(peer);
                        return qp.reliable() ? fail(qp, wr, WorkCompletion.REM_OP_ERR, 0) : dropped(qp, wr, total);
                    }
                    room += recv.sges()[i].len();
                }
                if (room < total) {
                    take(peer);
                    complete(peer.recvCq, recv.wrId(), LOC_LEN_ERR, WorkCompletion.WC_RECV, 0, 0, peer, qp.qpn, 0);
                    toError(peer);
                    return qp.reliable() ? fail(qp, wr, REM_INV_REQ_ERR, 0) : dropped(qp, wr, total);
                }
                scatter(wr.sges(), local, recv.sges(), remote, total);
                take(peer);
                boolean imm = wr.opcode() == SendWr.OP_SEND_WITH_IMM;
                complete(peer.recvCq, recv.wrId(), SUCCESS, WorkCompletion.WC_RECV, (int) total, wr.immData(), peer,
                        qp.qpn, imm ? WorkCompletion.WITH_IMM : 0);
                stats.sendBytes.add(total);
                succeed(qp, wr, WorkCompletion.WC_SEND, (int) total);
            }
            case SendWr.OP_RDMA_WRITE, SendWr.OP_RDMA_WRITE_WITH_IMM -> {
                boolean imm = wr.opcode() == SendWr.OP_RDMA_WRITE_WITH_IMM;
                if (imm && peer.receives().peek() == null) {
                    return qp.reliable() ? rnr(qp, wr, peer) : dropped(qp, wr, total);
                }
                MemoryRegion target = remote(qp, peer, wr, total, MemoryRegion.REMOTE_WRITE);
                if (target == null) {
                    return qp.reliable() ? fail(qp, wr, REM_ACCESS_ERR, 0) : dropped(qp, wr, total);
                }
                long off = wr.remoteAddr() - target.appBase;
                for (int i = 0; i < local.length; i++) {
                    Sge s = wr.sges()[i];
                    copy(local[i].buf, s.offset(), target.buf, off, s.len());
                    off += s.len();
                }
                if (imm) {
                    RecvWr recv = take(peer);
                    complete(peer.recvCq, recv.wrId(), SUCCESS, WorkCompletion.WC_RECV_RDMA_WITH_IMM, (int) total,
                            wr.immData(), peer, qp.qpn, WorkCompletion.WITH_IMM);
                }
                stats.writeBytes.add(total);
                succeed(qp, wr, WorkCompletion.WC_RDMA_WRITE, (int) total);
            }
            case SendWr.OP_RDMA_READ -> {
                MemoryRegion source = remote(qp, peer, wr, total, MemoryRegion.REMOTE_READ);
                if (source == null) {
                    return fail(qp, wr, REM_ACCESS_ERR, 0);
                }
                long off = wr.remoteAddr() - source.appBase;
                for (int i = 0; i < local.length; i++) {
                    Sge s = wr.sges()[i];
                    copy(source.buf, off, local[i].buf, s.offset(), s.len());
                    off += s.len();
                }
                stats.readBytes.add(total);
                succeed(qp, wr, WorkCompletion.WC_RDMA_READ, (int) total);
            }
            default -> {
                return fail(qp, wr, WorkCompletion.LOC_QP_OP_ERR, 0);
            }
        }
        return Outcome.DONE;
    }

    /** An SGE's MR in the QP owner's own table, same PD, access granted, bounds inside; null otherwise. */
    private static MemoryRegion lookup(QueuePair qp, Sge s, int access) {
        MemoryRegion mr = qp.localMrCache;
        if (mr == null || mr.key != s.lkey() || mr.deregistered) {
            mr = qp.tenant.mrsByKey.get(s.lkey());
            if (mr == null) {
                return null;
            }
            qp.localMrCache = mr;
        }
        if (mr.pd != qp.pd || (mr.access & access) != access || !mr.contains(s.offset(), s.len())) {
            return null;
        }
        return mr;
    }

    /** The responder-side MR of a WRITE/READ: the rkey in the peer's tables, the peer QP's PD, access on both. */
    private static MemoryRegion remote(QueuePair qp, QueuePair peer, SendWr wr, long len, int access) {
        MemoryRegion mr = qp.remoteMrCache;
        if (mr == null || mr.key != wr.rkey() || mr.tenant != peer.tenant || mr.deregistered) {
            mr = peer.tenant.mrsByKey.get(wr.rkey());
            qp.remoteMrCache = mr;
        }
        if (mr == null || mr.pd != peer.pd || (mr.access & access) == 0 || (peer.accessFlags & access) == 0) {
            return null;
        }
        return mr.contains(wr.remoteAddr() - mr.appBase, len) ? mr : null;
    }

    private static void scatter(Sge[] src, MemoryRegion[] srcMr, Sge[] dst, MemoryRegion[] dstMr, long total) {
        int si = 0;
        int di = 0;
        long so = 0;
        long dOff = 0;
        long left = total;
        while (left > 0) {
            while (src[si].len() - so == 0) {
                si++;
                so = 0;
            }
            while (dst[di].len() - dOff == 0) {
                di++;
                dOff = 0;
            }
            long n = Math.min(Math.min(src[si].len() - so, dst[di].len() - dOff), left);
            copy(srcMr[si].buf, src[si].offset() + so, dstMr[di].buf, dst[di].offset() + dOff, n);
            so += n;
            dOff += n;
            left -= n;
        }
    }

    private static void copy(ByteBuffer src, long srcOff, ByteBuffer dst, long dstOff, long n) {
        if (n > 0) {
            dst.put((int) dstOff, src, (int) srcOff, (int) n);
        }
    }

    private static long length(SendWr wr) {
        long n = 0;
        for (Sge s : wr.sges()) {
            n += s.len();
        }
        return n;
    }

    /** UC: the message is lost on the way and nobody says so; the sender's WR completes as sent. */
    private Outcome dropped(QueuePair qp, SendWr wr, long total) {
        stats.ucDropped.increment();
        succeed(qp, wr, opcodeOf(wr), (int) total);
        return Outcome.DONE;
    }

    private Outcome rnr(QueuePair qp, SendWr wr, QueuePair peer) {
        stats.rnrNaks.increment();
        if (qp.rnrRetry != 7 && qp.rnrNaks >= qp.rnrRetry) {
            return fail(qp, wr, RNR_RETRY_EXC_ERR, 0);
        }
        qp.rnrNaks++;
        qp.rnrRetryAt = System.nanoTime() + QpTransitions.rnrDelayNanos(peer.minRnrTimer);
        qp.rnrWaiting = true;
        rnrWaiting.add(qp);
        timersArmed = true;
        return Outcome.RNR;
    }

    /** Whether an RNR retry waits; safe without the router lock (a stale answer only delays a retry by one scan). */
    @Override
    public boolean timersPending() {
        return timersArmed;
    }

    @Override
    public void tick(long now) {
        if (rnrWaiting.isEmpty()) {
            return;
        }
        for (QueuePair qp : rnrWaiting.toArray(new QueuePair[0])) {
            if (now - qp.rnrRetryAt >= 0) {
                unwait(qp);
                progress(qp);
            }
        }
    }

    private void succeed(QueuePair qp, SendWr wr, int opcode, int len) {
        if (wr.signaled() || qp.sqSigAll) {
            complete(qp.sendCq, wr.wrId(), SUCCESS, opcode, len, 0, qp, 0, 0);
        }
    }

    private Outcome fail(QueuePair qp, SendWr wr, int status, int len) {
        complete(qp.sendCq, wr.wrId(), status, opcodeOf(wr), len, 0, qp, 0, 0);
        return Outcome.FAILED;
    }

    private static int opcodeOf(SendWr wr) {
        return switch (wr.opcode()) {
            case SendWr.OP_RDMA_WRITE, SendWr.OP_RDMA_WRITE_WITH_IMM -> WorkCompletion.WC_RDMA_WRITE;
            case SendWr.OP_RDMA_READ -> WorkCompletion.WC_RDMA_READ;
            default -> WorkCompletion.WC_SEND;
        };
    }

    /** QP to ERR: every outstanding send and receive completes with WR_FLUSH_ERR, in order. */
    void toError(QueuePair qp) {
        qp.state = QueuePair.ERR;
        unwait(qp);
        flush(qp);
    }

    private void flush(QueuePair qp) {
        SendWr s;
        while ((s = qp.sq.poll()) != null) {
            complete(qp.sendCq, s.wrId(), WR_FLUSH_ERR, opcodeOf(s), 0, 0, qp, 0, 0);
        }
        RecvWr r;
        while ((r = qp.rq.poll()) != null) {
            complete(qp.recvCq, r.wrId(), WR_FLUSH_ERR, WorkCompletion.WC_RECV, 0, 0, qp, 0, 0);
        }
    }

    private void complete(CompletionQueue cq, long wrId, int status, int opcode, int len, int imm, QueuePair qp,
                          int srcQp, int flags) {
        if (cq.entries.size() >= cq.depth) {
            if (!cq.overflowed) {
                cq.overflowed = true;
                org.slf4j.LoggerFactory.getLogger(SoftwareTransport.class).warn("freeflow CQ {} of {} overflowed (depth {})",
                        cq.handle, cq.tenant.id(), cq.depth);
            }
            stats.cqOverflows.increment();
            return;
        }
        cq.entries.add(new WorkCompletion(wrId, status, opcode, len, imm, qp.qpn, srcQp, flags));
        stats.completions.increment();
        if (status != SUCCESS) {
            stats.errorCompletions.increment();
        }
        completions.added(cq);
    }
}
