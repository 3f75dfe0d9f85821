// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.verbs;

/**
 * Offsets in rdma-core's {@code infiniband/verbs.h} structs (LP64; read with gcc's {@code offsetof} from
 * rdma-core 44's header, Debian 12, whose layouts are the stable ABI of libibverbs.so.1).
 */
public final class NativeLayout {
    private NativeLayout() {
    }

    // struct ibv_context: device, then struct ibv_context_ops (function pointers)
    public static final int CTX_POLL_CQ = 96;
    public static final int CTX_POST_SEND = 208;
    public static final int CTX_POST_RECV = 216;
    public static final int CTX_POST_SRQ_RECV = 168;
    public static final int CTX_ASYNC_FD = 268;
    public static final int CTX_REQ_NOTIFY_CQ = 104;
    // struct ibv_comp_channel: context, fd, refcnt
    public static final int COMP_CHANNEL_FD = 8;
    // struct ibv_async_event (16 bytes): union element {cq, qp, srq, wq pointer; int port_num}, event_type
    public static final int ASYNC_EVENT_SIZE = 16;
    public static final int ASYNC_ELEMENT = 0;
    public static final int ASYNC_EVENT_TYPE = 8;
    // struct ibv_qp / ibv_cq / ibv_mr
    public static final int QP_CONTEXT = 0;
    public static final int QP_NUM = 52;
    public static final int CQ_CONTEXT = 0;
    public static final int MR_LKEY = 36;
    public static final int MR_RKEY = 40;

    // struct ibv_send_wr (128 bytes)
    public static final int SEND_WR_SIZE = 128;
    public static final int WR_ID = 0;
    public static final int WR_NEXT = 8;
    public static final int WR_SG_LIST = 16;
    public static final int WR_NUM_SGE = 24;
    public static final int WR_OPCODE = 28;
    public static final int WR_SEND_FLAGS = 32;
    public static final int WR_IMM = 36;
    public static final int WR_REMOTE_ADDR = 40;
    public static final int WR_RKEY = 48;
    // a UD QP's WR: the union holds {ah, remote_qpn, remote_qkey}
    public static final int WR_UD_AH = 40;
    public static final int WR_UD_REMOTE_QPN = 48;
    public static final int WR_UD_REMOTE_QKEY = 52;
    // struct ibv_recv_wr (32 bytes): wr_id, next, sg_list, num_sge as above
    public static final int RECV_WR_SIZE = 32;
    // struct ibv_sge (16 bytes)
    public static final int SGE_SIZE = 16;
    public static final int SGE_ADDR = 0;
    public static final int SGE_LENGTH = 8;
    public static final int SGE_LKEY = 12;

    // struct ibv_wc (48 bytes), the same layout the Freeflow wire uses
    public static final int WC_SIZE = 48;
    public static final int WC_WR_ID = 0;
    public static final int WC_STATUS = 8;
    public static final int WC_OPCODE = 12;
    public static final int WC_BYTE_LEN = 20;
    public static final int WC_IMM = 24;
    public static final int WC_QP_NUM = 28;
    public static final int WC_SRC_QP = 32;
    public static final int WC_FLAGS = 36;

    // struct ibv_qp_init_attr (64 bytes)
    public static final int INIT_ATTR_SIZE = 64;
    public static final int INIT_SEND_CQ = 8;
    public static final int INIT_RECV_CQ = 16;
    public static final int INIT_SRQ = 24;
    public static final int INIT_CAP = 32;          // max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline
    public static final int INIT_QP_TYPE = 52;
    public static final int INIT_SQ_SIG_ALL = 56;

    // struct ibv_srq_init_attr (24 bytes): srq_context, then a struct ibv_srq_attr (srq_limit 0: no limit armed)
    public static final int SRQ_INIT_ATTR_SIZE = 24;
    public static final int SRQ_INIT_MAX_WR = 8;
    public static final int SRQ_INIT_MAX_SGE = 12;
    // struct ibv_srq_attr (12 bytes), ibv_modify_srq's
    public static final int SRQ_ATTR_SIZE = 12;
    public static final int SRQ_ATTR_MAX_WR = 0;
    public static final int SRQ_ATTR_LIMIT = 8;

    // struct ibv_qp_attr (144 bytes)
    public static final int QP_ATTR_SIZE = 144;
    public static final int ATTR_QP_STATE = 0;
    public static final int ATTR_CUR_QP_STATE = 4;
    public static final int ATTR_PATH_MTU = 8;
    public static final int ATTR_QKEY = 16;
    public static final int ATTR_RQ_PSN = 20;
    public static final int ATTR_SQ_PSN = 24;
    public static final int ATTR_DEST_QP_NUM = 28;
    public static final int ATTR_ACCESS_FLAGS = 32;
    public static final int ATTR_AH_DGID = 56;
    public static final int ATTR_AH_FLOW_LABEL = 72;
    public static final int ATTR_AH_SGID_INDEX = 76;
    public static final int ATTR_AH_HOP_LIMIT = 77;
    public static final int ATTR_AH_DLID = 80;
    public static final int ATTR_AH_SL = 82;
    public static final int ATTR_AH_IS_GLOBAL = 85;
    public static final int ATTR_AH_PORT_NUM = 86;
    public static final int ATTR_PKEY_INDEX = 120;
    public static final int ATTR_MAX_RD_ATOMIC = 126;
    public static final int ATTR_MAX_DEST_RD_ATOMIC = 127;
    public static final int ATTR_MIN_RNR_TIMER = 128;
    public static final int ATTR_PORT_NUM = 129;
    public static final int ATTR_TIMEOUT = 130;
    public static final int ATTR_RETRY_CNT = 131;
    public static final int ATTR_RNR_RETRY = 132;

    // struct ibv_ah_attr (32 bytes): grh {dgid, flow_label, sgid_index, hop_limit, traffic_class}, dlid, sl, ...
    public static final int AH_ATTR_SIZE = 32;
    public static final int AH_DGID = 0;
    public static final int AH_SGID_INDEX = 20;
    public static final int AH_HOP_LIMIT = 21;
    public static final int AH_DLID = 24;
    public static final int AH_SL = 26;
    public static final int AH_IS_GLOBAL = 29;
    public static final int AH_PORT_NUM = 30;

    // struct ibv_device_attr (232 bytes)
    public static final int DEV_ATTR_SIZE = 232;
    public static final int DEV_MAX_MR_SIZE = 80;
    public static final int DEV_MAX_QP = 108;
    public static final int DEV_MAX_QP_WR = 112;
    public static final int DEV_MAX_SGE = 120;
    public static final int DEV_MAX_CQ = 128;
    public static final int DEV_MAX_CQE = 132;
    public static final int DEV_MAX_MR = 136;
    public static final int DEV_MAX_PD = 140;
    public static final int DEV_MAX_QP_RD_ATOM = 144;
    public static final int DEV_MAX_SRQ = 212;
    public static final int DEV_MAX_SRQ_WR = 216;
    public static final int DEV_MAX_SRQ_SGE = 220;

    // struct _compat_ibv_port_attr, the prefix ibv_query_port@@IBVERBS_1.1 fills (full struct: 52 bytes)
    public static final int PORT_ATTR_SIZE = 64;
    public static final int PORT_STATE = 0;
    public static final int PORT_MAX_MTU = 4;
    public static final int PORT_ACTIVE_MTU = 8;
    public static final int PORT_GID_TBL_LEN = 12;
    public static final int PORT_LID = 34;
    public static final int PORT_LINK_LAYER = 46;
}
