// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.ModifyQpRequest;
import io.rdmanode.freeflow.internal.wire.PortAttrResponse;
import io.rdmanode.freeflow.internal.wire.PostResponse;
import io.rdmanode.freeflow.internal.wire.QpAttributes;
import io.rdmanode.freeflow.internal.wire.RecvWr;
import io.rdmanode.freeflow.internal.wire.SendWr;
import io.rdmanode.freeflow.internal.wire.WireException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * What moves the data of the router's QPs. The router owns the tenants, their handles, quotas and shared memory,
 * and checks every request against the tenant's own tables before a transport sees it; a transport owns what a
 * NIC owns: QP state, the send and receive queues' progress, and completions. {@link SoftwareTransport} copies
 * between MR files inside this host; a verbs transport creates the same objects on a real device (its PD, CQ, QP,
 * SRQ and MR over the tenant's shm file) in the {@code created}/{@code destroyed} calls below, and passes posts,
 * polls and MODIFY_QP/QUERY_QP through.
 *
 * <p>Every call is made with the router's monitor held, the fast path's included, except {@link #timersPending},
 * which the poller thread asks after every scan without the lock. A refused verb throws
 * {@link io.rdmanode.freeflow.internal.wire.WireException} with the errno the client gets, after changing nothing;
 * a post answers with a {@link PostResponse} naming the first bad WR, as ibv_post_send does.
 */
interface Transport {

    /** Whether QPs of this ibv_qp_type can be created. */
    boolean supports(int qpType);

    /** A QP was created (its QPN taken, its CQs, SRQ and mailbox bound); a hardware transport creates its own. */
    void created(QueuePair qp);

    /** The QP is gone from the tenant's tables; its queues are already cleared. Nothing of it may stay behind. */
    void destroyed(QueuePair qp);

    /** An SRQ was created (its handle and mailbox bound, no QP on it yet); a hardware transport creates its own. */
    default void srqCreated(SharedReceiveQueue srq) {
    }

    /** MODIFY_SRQ's IBV_SRQ_MAX_WR, before the router records it (a device may refuse the size). */
    default void srqResized(SharedReceiveQueue srq, int maxWr) {
    }

    /**
     * MODIFY_SRQ's IBV_SRQ_LIMIT: SRQ_LIMIT_REACHED is to fire once fewer than {@code limit} receives are posted
     * (a device arms its own; the software transport checks {@link SharedReceiveQueue#limit} as it takes one).
     */
    default void srqArmed(SharedReceiveQueue srq, int limit) {
    }

    /** The SRQ is gone from the tenant's tables (no QP used it any more). Nothing of it may stay behind. */
    default void srqDestroyed(SharedReceiveQueue srq) {
    }

    /** CREATE_AH passed the router's checks; a transport without UD refuses it (EOPNOTSUPP). */
    default void ahCreated(AddressHandle ah) {
        throw new WireException(Errno.EOPNOTSUPP, "CREATE_AH: this transport has no UD QPs");
    }

    /** The AH is gone from the tenant's tables. */
    default void ahDestroyed(AddressHandle ah) {
    }

    /** MODIFY_QP: the state transition and the attributes of attrMask. */
    void modify(QueuePair qp, ModifyQpRequest r);

    /** QUERY_QP: the state and the attributes the transport accepted ({@link QueuePair#accept}). */
    default QpAttributes query(QueuePair qp) {
        return qp.attributes();
    }

    PostResponse postSend(QueuePair qp, List<SendWr> wrs);

    PostResponse postRecv(QueuePair qp, List<RecvWr> wrs);

    PostResponse postSrqRecv(SharedReceiveQueue srq, List<RecvWr> wrs);

    /**
     * A poll for up to ne completions is about to look at the CQ's entries: a device transport moves in what its
     * device CQ holds first (it polls the device only when asked).
     */
    default void refill(CompletionQueue cq, int ne) {
    }

    /** Moves up to ne completions of cq into out at offset at, as ibv_wc-layout entries; returns how many. */
    int poll(CompletionQueue cq, int ne, ByteBuffer out, int at);

    /**
     * REQ_NOTIFY_CQ armed the CQ ({@link CompletionQueue#armed}, {@link CompletionQueue#solicitedOnly} set): a device
     * transport arms its own CQ. Lock held.
     */
    default void cqArmed(CompletionQueue cq) {
    }

    /** Whether {@link #tick} has work (an RNR retry waiting); asked after every poller scan, without the lock. */
    boolean timersPending();

    /** Time-driven work (retries) due at now, System.nanoTime(). */
    void tick(long now);

    /** QUERY_PORT of port 1. */
    default PortAttrResponse port() {
        return new PortAttrResponse(PortAttrResponse.PORT_ACTIVE, 0, 1);
    }

    /** The real device's limits (ibv_query_device), which QUERY_DEV's caps with; empty without one. */
    default java.util.Optional<io.rdmanode.freeflow.internal.verbs.VerbsDevice.Attr> deviceAttr() {
        return java.util.Optional.empty();
    }

    /** The keys a hardware transport gave an MR: what the client sees as lkey and rkey. */
    record Keys(int lkey, int rkey) {
    }

    /**
     * REG_MR passed the router's checks and its file exists: a hardware transport registers the file's pages (the
     * router's mapping) in the tenant's PD and returns the device's keys; null lets the router choose a key.
     */
    default Keys register(Tenant t, int access, ShmFile file) {
        return null;
    }

    /** The address the transport registered the MR's pages at (what a remote NIC writes to), if it did. */
    default java.util.OptionalLong registeredAt(MemoryRegion mr) {
        return java.util.OptionalLong.empty();
    }

    /** DEREG_MR (or reclamation), before the router unmaps the file: the device must not touch the pages after. */
    default void deregister(MemoryRegion mr) {
    }

    /** The router stops: every tenant was reclaimed; a hardware transport closes its device. */
    default void close() {
    }

    /** Where a transport delivers completions: the router raises the CQ's channel event when it is armed. */
    interface Completions {
        void added(CompletionQueue cq);
    }
}
