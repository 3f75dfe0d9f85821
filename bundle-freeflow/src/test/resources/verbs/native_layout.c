// SPDX-License-Identifier: Apache-2.0
// The C side of NativeLayoutTest: each constant of NativeLayout as gcc computes it from <infiniband/verbs.h>.
#include <stddef.h>
#include <stdio.h>
#include <infiniband/verbs.h>

#define P(name, value) printf("%s=%zu\n", name, (size_t)(value))
#define QA(name, member) P(name, offsetof(struct ibv_qp_attr, member))

int main(void) {
    P("CTX_POLL_CQ", offsetof(struct ibv_context, ops.poll_cq));
    P("CTX_POST_SEND", offsetof(struct ibv_context, ops.post_send));
    P("CTX_POST_RECV", offsetof(struct ibv_context, ops.post_recv));
    P("CTX_POST_SRQ_RECV", offsetof(struct ibv_context, ops.post_srq_recv));
    P("CTX_ASYNC_FD", offsetof(struct ibv_context, async_fd));
    P("CTX_REQ_NOTIFY_CQ", offsetof(struct ibv_context, ops.req_notify_cq));
    P("COMP_CHANNEL_FD", offsetof(struct ibv_comp_channel, fd));
    P("ASYNC_EVENT_SIZE", sizeof(struct ibv_async_event));
    P("ASYNC_ELEMENT", offsetof(struct ibv_async_event, element));
    P("ASYNC_EVENT_TYPE", offsetof(struct ibv_async_event, event_type));
    P("QP_CONTEXT", offsetof(struct ibv_qp, context));
    P("QP_NUM", offsetof(struct ibv_qp, qp_num));
    P("CQ_CONTEXT", offsetof(struct ibv_cq, context));
    P("MR_LKEY", offsetof(struct ibv_mr, lkey));
    P("MR_RKEY", offsetof(struct ibv_mr, rkey));
    P("SEND_WR_SIZE", sizeof(struct ibv_send_wr));
    P("WR_ID", offsetof(struct ibv_send_wr, wr_id));
    P("WR_NEXT", offsetof(struct ibv_send_wr, next));
    P("WR_SG_LIST", offsetof(struct ibv_send_wr, sg_list));
    P("WR_NUM_SGE", offsetof(struct ibv_send_wr, num_sge));
    P("WR_OPCODE", offsetof(struct ibv_send_wr, opcode));
    P("WR_SEND_FLAGS", offsetof(struct ibv_send_wr, send_flags));
    P("WR_IMM", offsetof(struct ibv_send_wr, imm_data));
    P("WR_REMOTE_ADDR", offsetof(struct ibv_send_wr, wr.rdma.remote_addr));
    P("WR_RKEY", offsetof(struct ibv_send_wr, wr.rdma.rkey));
    P("WR_UD_AH", offsetof(struct ibv_send_wr, wr.ud.ah));
    P("WR_UD_REMOTE_QPN", offsetof(struct ibv_send_wr, wr.ud.remote_qpn));
    P("WR_UD_REMOTE_QKEY", offsetof(struct ibv_send_wr, wr.ud.remote_qkey));
    P("RECV_WR_SIZE", sizeof(struct ibv_recv_wr));
    // the receive WR's first members sit where the send WR's do (NativeLayout uses WR_* for both)
    P("RECV_WR_ID", offsetof(struct ibv_recv_wr, wr_id));
    P("RECV_WR_NEXT", offsetof(struct ibv_recv_wr, next));
    P("RECV_WR_SG_LIST", offsetof(struct ibv_recv_wr, sg_list));
    P("RECV_WR_NUM_SGE", offsetof(struct ibv_recv_wr, num_sge));
    P("SGE_SIZE", sizeof(struct ibv_sge));
    P("SGE_ADDR", offsetof(struct ibv_sge, addr));
    P("SGE_LENGTH", offsetof(struct ibv_sge, length));
    P("SGE_LKEY", offsetof(struct ibv_sge, lkey));
    P("WC_SIZE", sizeof(struct ibv_wc));
    P("WC_WR_ID", offsetof(struct ibv_wc, wr_id));
    P("WC_STATUS", offsetof(struct ibv_wc, status));
    P("WC_OPCODE", offsetof(struct ibv_wc, opcode));
    P("WC_BYTE_LEN", offsetof(struct ibv_wc, byte_len));
    P("WC_IMM", offsetof(struct ibv_wc, imm_data));
    P("WC_QP_NUM", offsetof(struct ibv_wc, qp_num));
    P("WC_SRC_QP", offsetof(struct ibv_wc, src_qp));
    P("WC_FLAGS", offsetof(struct ibv_wc, wc_flags));
    P("INIT_ATTR_SIZE", sizeof(struct ibv_qp_init_attr));
    P("INIT_SEND_CQ", offsetof(struct ibv_qp_init_attr, send_cq));
    P("INIT_RECV_CQ", offsetof(struct ibv_qp_init_attr, recv_cq));
    P("INIT_SRQ", offsetof(struct ibv_qp_init_attr, srq));
    P("INIT_CAP", offsetof(struct ibv_qp_init_attr, cap));
    P("INIT_QP_TYPE", offsetof(struct ibv_qp_init_attr, qp_type));
    P("INIT_SQ_SIG_ALL", offsetof(struct ibv_qp_init_attr, sq_sig_all));
    P("SRQ_INIT_ATTR_SIZE", sizeof(struct ibv_srq_init_attr));
    P("SRQ_INIT_MAX_WR", offsetof(struct ibv_srq_init_attr, attr.max_wr));
    P("SRQ_INIT_MAX_SGE", offsetof(struct ibv_srq_init_attr, attr.max_sge));
    P("SRQ_ATTR_SIZE", sizeof(struct ibv_srq_attr));
    P("SRQ_ATTR_MAX_WR", offsetof(struct ibv_srq_attr, max_wr));
    P("SRQ_ATTR_LIMIT", offsetof(struct ibv_srq_attr, srq_limit));
    P("DEV_ATTR_SIZE", sizeof(struct ibv_device_attr));
    P("DEV_MAX_MR_SIZE", offsetof(struct ibv_device_attr, max_mr_size));
    P("DEV_MAX_QP", offsetof(struct ibv_device_attr, max_qp));
    P("DEV_MAX_QP_WR", offsetof(struct ibv_device_attr, max_qp_wr));
    P("DEV_MAX_SGE", offsetof(struct ibv_device_attr, max_sge));
    P("DEV_MAX_CQ", offsetof(struct ibv_device_attr, max_cq));
    P("DEV_MAX_CQE", offsetof(struct ibv_device_attr, max_cqe));
    P("DEV_MAX_MR", offsetof(struct ibv_device_attr, max_mr));
    P("DEV_MAX_PD", offsetof(struct ibv_device_attr, max_pd));
    P("DEV_MAX_QP_RD_ATOM", offsetof(struct ibv_device_attr, max_qp_rd_atom));
    P("DEV_MAX_SRQ", offsetof(struct ibv_device_attr, max_srq));
    P("DEV_MAX_SRQ_WR", offsetof(struct ibv_device_attr, max_srq_wr));
    P("DEV_MAX_SRQ_SGE", offsetof(struct ibv_device_attr, max_srq_sge));
    P("QP_ATTR_SIZE", sizeof(struct ibv_qp_attr));
    QA("ATTR_QP_STATE", qp_state);
    QA("ATTR_CUR_QP_STATE", cur_qp_state);
    QA("ATTR_PATH_MTU", path_mtu);
    QA("ATTR_QKEY", qkey);
    QA("ATTR_RQ_PSN", rq_psn);
    QA("ATTR_SQ_PSN", sq_psn);
    QA("ATTR_DEST_QP_NUM", dest_qp_num);
    QA("ATTR_ACCESS_FLAGS", qp_access_flags);
    QA("ATTR_AH_DGID", ah_attr.grh.dgid);
    QA("ATTR_AH_FLOW_LABEL", ah_attr.grh.flow_label);
    QA("ATTR_AH_SGID_INDEX", ah_attr.grh.sgid_index);
    QA("ATTR_AH_HOP_LIMIT", ah_attr.grh.hop_limit);
    QA("ATTR_AH_DLID", ah_attr.dlid);
    QA("ATTR_AH_SL", ah_attr.sl);
    QA("ATTR_AH_IS_GLOBAL", ah_attr.is_global);
    QA("ATTR_AH_PORT_NUM", ah_attr.port_num);
    QA("ATTR_PKEY_INDEX", pkey_index);
    QA("ATTR_MAX_RD_ATOMIC", max_rd_atomic);
    QA("ATTR_MAX_DEST_RD_ATOMIC", max_dest_rd_atomic);
    QA("ATTR_MIN_RNR_TIMER", min_rnr_timer);
    QA("ATTR_PORT_NUM", port_num);
    QA("ATTR_TIMEOUT", timeout);
    QA("ATTR_RETRY_CNT", retry_cnt);
    QA("ATTR_RNR_RETRY", rnr_retry);
    P("AH_ATTR_SIZE", sizeof(struct ibv_ah_attr));
    P("AH_DGID", offsetof(struct ibv_ah_attr, grh.dgid));
    P("AH_SGID_INDEX", offsetof(struct ibv_ah_attr, grh.sgid_index));
    P("AH_HOP_LIMIT", offsetof(struct ibv_ah_attr, grh.hop_limit));
    P("AH_DLID", offsetof(struct ibv_ah_attr, dlid));
    P("AH_SL", offsetof(struct ibv_ah_attr, sl));
    P("AH_IS_GLOBAL", offsetof(struct ibv_ah_attr, is_global));
    P("AH_PORT_NUM", offsetof(struct ibv_ah_attr, port_num));
    // ibv_query_port@@IBVERBS_1.1 fills struct _compat_ibv_port_attr; NativeLayout's buffer must hold the full one
    P("PORT_ATTR_FITS", sizeof(struct ibv_port_attr) <= 64 ? 64 : 0);
    P("PORT_STATE", offsetof(struct ibv_port_attr, state));
    P("PORT_MAX_MTU", offsetof(struct ibv_port_attr, max_mtu));
    P("PORT_ACTIVE_MTU", offsetof(struct ibv_port_attr, active_mtu));
    P("PORT_GID_TBL_LEN", offsetof(struct ibv_port_attr, gid_tbl_len));
    P("PORT_LID", offsetof(struct ibv_port_attr, lid));
    P("PORT_LINK_LAYER", offsetof(struct ibv_port_attr, link_layer));
    return 0;
}
