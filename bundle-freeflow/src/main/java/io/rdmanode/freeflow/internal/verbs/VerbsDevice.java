// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.verbs;

import java.nio.ByteBuffer;

/**
 * One opened RDMA device, as the verbs transport uses it: thin calls named after the libibverbs function each wraps,
 * objects as their C pointers. Native structs are passed in direct buffers laid out as {@link NativeLayout} says.
 * A failing call throws {@link io.rdmanode.freeflow.internal.wire.WireException} with the errno the call gave, which
 * is also what the Freeflow client gets. Not thread-safe: the router calls it under its monitor.
 */
public interface VerbsDevice extends AutoCloseable {

    /** Port 1 as {@code ibv_query_port} reports it. */
    record Port(int state, int maxMtu, int activeMtu, int gidTblLen, int lid, int linkLayer) {
    }

    /** The limits {@code ibv_query_device} reports (what QUERY_DEV caps the router's own limits with). */
    record Attr(long maxMrSize, int maxQp, int maxQpWr, int maxSge, int maxCq, int maxCqe, int maxMr, int maxPd,
                int maxQpRdAtom, int maxSrq, int maxSrqWr, int maxSrqSge) {
    }

    record Mr(long handle, int lkey, int rkey) {
    }

    record Qp(long handle, int qpn) {
    }

    /**
     * One {@code struct ibv_async_event} as {@code ibv_get_async_event} gave it, not yet acknowledged: {@code element}
     * is the device object's pointer (a QP, CQ or SRQ handle of this interface) or the port number, by type.
     */
    record AsyncEvent(int type, long element, long nativeEvent) {
    }

    /** What {@code ibv_post_send}/{@code ibv_post_recv} answered: 0, or the errno and the 1-based bad WR. */
    record Posted(int errno, int badWr) {
    }

    String name();

    Port port();

    /** {@code ibv_query_device}'s limits. */
    Attr attr();

    /** {@code ibv_query_gid(ctx, 1, index)}. */
    byte[] gid(int index);

    long allocPd();

    void deallocPd(long pd);

    Mr regMr(long pd, long addr, long length, int access);

    void deregMr(long mr);

    /** {@code ibv_create_cq} on the device's completion channel ({@link #compFd}), vector 0. */
    long createCq(int cqe);

    /**
     * {@code ibv_req_notify_cq}: the device signals the channel at the CQ's next completion (with
     * {@code solicitedOnly}, its next solicited one or error), once.
     */
    void reqNotifyCq(long cq, boolean solicitedOnly);

    /** The device's one completion channel's fd ({@code ibv_create_comp_channel} at open), non-blocking. */
    int compFd();

    /**
     * {@code ibv_get_cq_event}, without blocking: the CQ the device signalled, or 0 when none did. Event thread only;
     * every event must be acknowledged ({@link #ackCqEvents}) before the CQ can be destroyed.
     */
    long getCqEvent();

    /** {@code ibv_ack_cq_events(cq, n)}: one call for the n events of a batch. */
    void ackCqEvents(long cq, int n);

    void destroyCq(long cq);

    /**
     * {@code ibv_create_qp}; {@code srq} is the device SRQ its receives come from, or 0; {@code maxInline} is the
     * client's {@code cap.max_inline_data}, as the genuine router passes it.
     */
    Qp createQp(long pd, long sendCq, long recvCq, long srq, int type, int maxSendWr, int maxRecvWr, int maxSendSge,
                int maxRecvSge, int maxInline, boolean sqSigAll);

    /** {@code ibv_modify_qp} with {@code attr} (a {@code struct ibv_qp_attr}, {@link NativeLayout#QP_ATTR_SIZE} bytes). */
    void modifyQp(long qp, ByteBuffer attr, int mask);

    void destroyQp(long qp);

    /** {@code ibv_create_srq} for {@code maxWr} receives of up to {@code maxSge} SGEs, with no limit armed. */
    long createSrq(long pd, int maxWr, int maxSge);

    /** {@code ibv_modify_srq} with {@code IBV_SRQ_MAX_WR}: the SRQ resized to hold {@code maxWr} receives. */
    void resizeSrq(long srq, int maxWr);

    /** {@code ibv_modify_srq} with {@code IBV_SRQ_LIMIT}: the SRQ_LIMIT_REACHED event armed at {@code limit}. */
    void armSrq(long srq, int limit);

    void destroySrq(long srq);

    /** {@code ibv_create_ah} with {@code attr} (a {@code struct ibv_ah_attr}, {@link NativeLayout#AH_ATTR_SIZE} bytes). */
    long createAh(long pd, ByteBuffer attr);

    void destroyAh(long ah);

    /** {@code ctx->ops.post_send(qp, wrs, &bad)}: {@code wrs} holds a linked list of {@code ibv_send_wr} at 0. */
    Posted postSend(long qp, ByteBuffer wrs);

    Posted postRecv(long qp, ByteBuffer wrs);

    /** {@code ctx->ops.post_srq_recv(srq, wrs, &bad)}: {@code wrs} holds a linked list of {@code ibv_recv_wr} at 0. */
    Posted postSrqRecv(long srq, ByteBuffer wrs);

    /** {@code ctx->ops.poll_cq(cq, n, wcs)}: how many completions it wrote, or a negative value on error. */
    int pollCq(long cq, int n, ByteBuffer wcs);

    /** The context's {@code async_fd}, non-blocking: readable when {@link #getAsyncEvent} has an event. */
    int asyncFd();

    /**
     * {@code ibv_get_async_event}, without blocking: the next event, or null when none is there. Called from one
     * event thread only, without the router's monitor; every event must be given back to {@link #ackAsyncEvent}
     * (destroying its object waits for that).
     */
    AsyncEvent getAsyncEvent();

    /** {@code ibv_ack_async_event}; after it the event's object may be destroyed and its pointer reused. */
    void ackAsyncEvent(AsyncEvent event);

    /** The native address of a direct buffer (what WR lists link through). */
    long address(ByteBuffer direct);

    @Override
    void close();
}
