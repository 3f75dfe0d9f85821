// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.wire.ModifyQpRequest;
import io.rdmanode.freeflow.internal.wire.QpAttributes;
import io.rdmanode.freeflow.internal.wire.RecvWr;
import io.rdmanode.freeflow.internal.wire.SendWr;
import java.util.ArrayDeque;

/**
 * A QP of the router: state, connection attributes (what MODIFY_QP set and QUERY_QP answers, whichever transport
 * moves the data), and the software transport's send and receive queues. Router-guarded.
 */
final class QueuePair {
    static final int RESET = 0;
    static final int INIT = 1;
    static final int RTR = 2;
    static final int RTS = 3;
    static final int SQD = 4;
    static final int SQE = 5;
    static final int ERR = 6;
    static final int TYPE_RC = 2;
    static final int TYPE_UC = 3;
    static final int TYPE_UD = 4;

    final Tenant tenant;
    final int handle;
    /** The router's number, or the device QP's with the verbs transport (set in {@link Transport#created}). */
    int qpn;
    /** RC or UC; set by the router right after construction, before the QP is in any table. */
    int type = TYPE_RC;
    /** The SRQ its receives come from, or null; set by the router right after construction, like the type. */
    SharedReceiveQueue srq;
    final int pd;
    final boolean sqSigAll;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final Mailbox mailbox;
    final int maxSendWr;
    final int maxRecvWr;
    final int maxSendSge;
    final int maxRecvSge;
    final ArrayDeque<SendWr> sq = new ArrayDeque<>();
    final ArrayDeque<RecvWr> rq = new ArrayDeque<>();
    /** The client's {@code cap.max_inline_data}: a device transport creates its QP with it (IBV_SEND_INLINE posts). */
    int maxInline;
    int state = RESET;
    int accessFlags;
    int portNum;
    int pathMtu;
    int destQpn = -1;
    long qkey;
    long rqPsn;
    long sqPsn;
    int minRnrTimer;
    int timeout;
    int retryCnt;
    int rnrRetry;
    byte[] dgid = new byte[16];
    int dlid;
    /**
     * The device GID index of the rdma_cm route this QP's address came from (its MODIFY_QP named what the kernel's
     * INIT_QP_ATTR answered), -1 for none: a device transport sources the address from it instead of its
     * configured index.
     */
    int routeGidIndex = -1;
    /** RNR NAKs seen by the WR at the head of the SQ, and when it may be retried. */
    int rnrNaks;
    long rnrRetryAt;
    /** In the engine's RNR-waiting set (mirrors membership: the fast path tests this, not the set). */
    boolean rnrWaiting;
    /** Destroyed: out of every table; a stale reference (cache) must not be used. */
    boolean destroyed;
    /**
     * The last connected QP and MRs this QP's work requests named. Only caches of table lookups (the tables stay the
     * authority): each entry is checked against the key or QPN asked for and against being destroyed before use.
     */
    QueuePair peerCache;
    MemoryRegion localMrCache;
    MemoryRegion remoteMrCache;

    QueuePair(Tenant tenant, int handle, int qpn, int pd, boolean sqSigAll, CompletionQueue sendCq,
              CompletionQueue recvCq, Mailbox mailbox, int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge) {
        this.tenant = tenant;
        this.handle = handle;
        this.qpn = qpn;
        this.pd = pd;
        this.sqSigAll = sqSigAll;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.mailbox = mailbox;
        this.maxSendWr = maxSendWr;
        this.maxRecvWr = maxRecvWr;
        this.maxSendSge = maxSendSge;
        this.maxRecvSge = maxRecvSge;
    }

    /**
     * Records the attributes of {@code r}'s attr_mask, once the transport accepted them, for QUERY_QP; the state is the
     * transport's to set. {@code pathMtu} is the MTU the transport applied (a device caps it at its port's).
     */
    void accept(ModifyQpRequest r, int pathMtu) {
        int mask = r.attrMask();
        if ((mask & QpTransitions.ACCESS_FLAGS) != 0) {
            accessFlags = r.accessFlags();
        }
        if ((mask & QpTransitions.PORT) != 0) {
            portNum = r.portNum();
        }
        if ((mask & QpTransitions.QKEY) != 0) {
            qkey = r.qkey();
        }
        if ((mask & QpTransitions.PATH_MTU) != 0) {
            this.pathMtu = pathMtu;
        }
        if ((mask & QpTransitions.AV) != 0) {
            dgid = r.dgid();
            dlid = r.dlid();
        }
        if ((mask & QpTransitions.DEST_QPN) != 0) {
            destQpn = r.destQpNum() & 0xffffff;
        }
        if ((mask & QpTransitions.RQ_PSN) != 0) {
            rqPsn = r.rqPsn();
        }
        if ((mask & QpTransitions.SQ_PSN) != 0) {
            sqPsn = r.sqPsn();
        }
        if ((mask & QpTransitions.MIN_RNR_TIMER) != 0) {
            minRnrTimer = r.minRnrTimer();
        }
        if ((mask & QpTransitions.TIMEOUT) != 0) {
            timeout = r.timeout();
        }
        if ((mask & QpTransitions.RETRY_CNT) != 0) {
            retryCnt = r.retryCnt();
        }
        if ((mask & QpTransitions.RNR_RETRY) != 0) {
            rnrRetry = r.rnrRetry();
        }
    }

    /** QUERY_QP's answer: the state and what {@link #accept} recorded. */
    QpAttributes attributes() {
        return new QpAttributes(state, pathMtu, qkey, rqPsn, sqPsn, Math.max(destQpn, 0), accessFlags, maxSendWr,
                maxRecvWr, maxSendSge, maxRecvSge, minRnrTimer, portNum, timeout, retryCnt, rnrRetry, dgid, dlid);
    }

    /** Where an incoming SEND (or WRITE with immediate) takes its receive from: the SRQ when it has one. */
    java.util.ArrayDeque<RecvWr> receives() {
        return srq != null ? srq.rq : rq;
    }

    boolean reliable() {
        return type == TYPE_RC;
    }

    static String stateName(int s) {
        return switch (s) {
            case RESET -> "RESET";
            case INIT -> "INIT";
            case RTR -> "RTR";
            case RTS -> "RTS";
            case SQD -> "SQD";
            case SQE -> "SQE";
            case ERR -> "ERR";
            default -> "state" + s;
        };
    }
}
