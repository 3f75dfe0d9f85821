// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

/** Function ids of the Freeflow client ({@code enum RDMA_FUNCTION_CALL}, freeflow.md §2.3) the router acts on. */
public final class Func {
    public static final int GET_CONTEXT = 1;
    public static final int QUERY_DEV = 2;
    public static final int EXP_QUERY_DEV = 3;
    public static final int QUERY_PORT = 4;
    public static final int ALLOC_PD = 5;
    public static final int DEALLOC_PD = 6;
    public static final int CREATE_QP = 7;
    public static final int MODIFY_QP = 8;
    public static final int QUERY_QP = 9;
    public static final int DESTROY_QP = 10;
    public static final int CREATE_SRQ = 11;
    public static final int MODIFY_SRQ = 12;
    public static final int POST_SRQ_RECV = 13;
    public static final int DESTROY_SRQ = 14;
    public static final int CREATE_CQ = 15;
    public static final int DESTROY_CQ = 16;
    public static final int POLL_CQ = 17;
    public static final int GET_CQ_EVENT = 18;
    public static final int ACK_CQ_EVENT = 19;
    public static final int REQ_NOTIFY_CQ = 20;
    public static final int REG_MR = 21;
    public static final int REG_MR_MAPPING = 22;
    public static final int DEREG_MR = 23;
    public static final int POST_SEND = 25;
    public static final int POST_RECV = 26;
    public static final int CREATE_COMP_CHANNEL = 27;
    public static final int DESTROY_COMP_CHANNEL = 28;
    public static final int CREATE_AH = 29;
    public static final int DESTROY_AH = 30;
    public static final int CM_CREATE_EVENT_CHANNEL = 36;
    public static final int CM_DESTROY_EVENT_CHANNEL = 37;
    public static final int CM_CREATE_ID = 38;
    public static final int CM_BIND_IP = 39;
    public static final int CM_BIND = 40;
    public static final int CM_GET_EVENT = 41;
    public static final int CM_QUERY_ROUTE = 42;
    public static final int CM_LISTEN = 43;
    public static final int CM_RESOLVE_IP = 44;
    public static final int CM_RESOLVE_ADDR = 45;
    public static final int CM_UCMA_QUERY_ADDR = 46;
    public static final int CM_UCMA_QUERY_GID = 47;
    public static final int CM_UCMA_PROCESS_CONN_RESP = 48;
    public static final int CM_DESTROY_ID = 49;
    public static final int CM_RESOLVE_ROUTE = 50;
    public static final int CM_UCMA_QUERY_PATH = 51;
    public static final int CM_INIT_QP_ATTR = 52;
    public static final int CM_CONNECT = 53;
    public static final int CM_ACCEPT = 54;
    public static final int CM_SET_OPTION = 55;
    public static final int CM_MIGRATE_ID = 56;
    public static final int CM_DISCONNECT = 57;
    public static final int SOCKET_SOCKET = 58;
    public static final int SOCKET_CONNECT = 62;
    /**
     * This router's extension for async events (layouts.txt): the tenant's async event fd, then its events one at a
     * time. The genuine client never asks (its GET_CONTEXT takes a bare fd number it cannot use), so nothing is
     * queued for it.
     */
    public static final int FFR_GET_ASYNC_FD = 63;
    public static final int FFR_GET_ASYNC_EVENT = 64;

    private Func() {
    }

    /** Calls that make an object the tenant's later calls name (a PD, QP, SRQ, CQ, MR or completion channel). */
    public static boolean creates(int func) {
        return func == ALLOC_PD || func == CREATE_QP || func == CREATE_SRQ || func == CREATE_CQ || func == REG_MR
                || func == CREATE_COMP_CHANNEL;
    }

    /**
     * Calls whose answer starts with an SCM_RIGHTS message (2 bytes + the descriptor) before the response struct:
     * the genuine client reads that message first whatever happened, so a refusal must send it too (without a
     * descriptor) or the client's recvmsg eats the start of the answer and it blocks for the rest forever.
     */
    public static boolean passesFdFirst(int func) {
        return func == CREATE_COMP_CHANNEL || func == CM_CREATE_EVENT_CHANNEL || func == FFR_GET_ASYNC_FD;
    }

    /** The TCP-mode calls, after which the genuine libfsocket closes its connection. */
    public static boolean socketCall(int func) {
        return func >= SOCKET_SOCKET && func <= SOCKET_CONNECT;
    }
}
