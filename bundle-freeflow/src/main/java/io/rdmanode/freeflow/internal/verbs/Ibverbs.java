// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.verbs;

import jnr.ffi.Pointer;
import jnr.ffi.byref.IntByReference;
import jnr.ffi.types.size_t;

/**
 * The exported libibverbs.so.1 functions the verbs transport calls (rdma-core {@code infiniband/verbs.h}; each
 * resolves to its default version, {@code @@IBVERBS_1.1}). ibv_post_send, ibv_post_recv, ibv_post_srq_recv and ibv_poll_cq
 * are static inline in the header: they call {@code ctx->ops.post_send} etc., which {@link LibibverbsDevice} reads from
 * {@code struct ibv_context} and invokes through jffi ({@link NativeLayout} has the offsets).
 *
 * <p>Return conventions: pointers are NULL + errno on failure; ibv_dealloc_pd, ibv_dereg_mr, ibv_destroy_cq,
 * ibv_destroy_qp, ibv_modify_qp, ibv_destroy_srq, ibv_modify_srq, ibv_query_port return 0 or an errno value; ibv_query_gid and ibv_close_device 0
 * or -1 + errno.
 */
public interface Ibverbs {

    Pointer ibv_get_device_list(IntByReference numDevices);

    void ibv_free_device_list(Pointer list);

    String ibv_get_device_name(Pointer device);

    Pointer ibv_open_device(Pointer device);

    int ibv_close_device(Pointer context);

    /** {@code ibv_query_device(ctx, struct ibv_device_attr *)}: 0 or an errno value. */
    int ibv_query_device(Pointer context, Pointer attr);

    /** {@code ibv_query_port@@IBVERBS_1.1}: fills a {@code struct _compat_ibv_port_attr} (a prefix of the full one). */
    int ibv_query_port(Pointer context, byte portNum, Pointer portAttr);

    int ibv_query_gid(Pointer context, byte portNum, int index, Pointer gid);

    Pointer ibv_alloc_pd(Pointer context);

    int ibv_dealloc_pd(Pointer pd);

    /** {@code ibv_reg_mr@@IBVERBS_1.1 (pd, addr, length, int access)}. */
    Pointer ibv_reg_mr(Pointer pd, long addr, @size_t long length, int access);

    int ibv_dereg_mr(Pointer mr);

    Pointer ibv_create_cq(Pointer context, int cqe, Pointer cqContext, Pointer channel, int compVector);

    int ibv_destroy_cq(Pointer cq);

    Pointer ibv_create_qp(Pointer pd, Pointer initAttr);

    int ibv_modify_qp(Pointer qp, Pointer attr, int attrMask);

    int ibv_destroy_qp(Pointer qp);

    /** {@code ibv_create_srq@@IBVERBS_1.1 (pd, struct ibv_srq_init_attr *)}; the attr's max_wr/max_sge come back raised. */
    Pointer ibv_create_srq(Pointer pd, Pointer initAttr);

    /** {@code ibv_modify_srq@@IBVERBS_1.1 (srq, struct ibv_srq_attr *, int srq_attr_mask)}: 0 or an errno value. */
    int ibv_modify_srq(Pointer srq, Pointer attr, int attrMask);

    int ibv_destroy_srq(Pointer srq);

    /** {@code ibv_get_async_event(ctx, struct ibv_async_event *)}: 0, or -1 + errno (EAGAIN on a non-blocking fd). */
    int ibv_get_async_event(Pointer context, Pointer event);

    void ibv_ack_async_event(Pointer event);

    Pointer ibv_create_comp_channel(Pointer context);

    int ibv_destroy_comp_channel(Pointer channel);

    /** {@code ibv_get_cq_event(channel, struct ibv_cq **cq, void **cq_context)}: 0, or -1 + errno. */
    int ibv_get_cq_event(Pointer channel, Pointer cq, Pointer cqContext);

    void ibv_ack_cq_events(Pointer cq, int nevents);

    /** {@code ibv_create_ah (pd, struct ibv_ah_attr *)}: NULL + errno on failure. */
    Pointer ibv_create_ah(Pointer pd, Pointer attr);

    int ibv_destroy_ah(Pointer ah);
}
