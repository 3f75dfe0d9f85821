// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import io.rdmanode.freeflow.internal.wire.Func;
import io.rdmanode.freeflow.internal.wire.Wire;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * How one CM_* request of the genuine client becomes a kernel UCMA command on {@code /dev/infiniband/rdma_cm}.
 * The client's body is {@code struct rdma_event_channel} (the router's channel number) and then the raw
 * {@code ucma_abi_*} command of librdmacm 1.1.0's {@code rdma_cma_abi.h}, at offset 4, or 8 when it holds a u64
 * (freeflow.md §2.4). As the genuine router's librdmacm {@code *_resp} helpers do, the router builds the kernel
 * command itself: its own header ({@code u32 cmd, u16 in, u16 out}), its own response pointer, and only the
 * fields it copies from the client ({@link #copies}: client offset, kernel offset, length), so nothing the client
 * writes in the header or a pointer reaches the kernel. Kernel command numbers: {@code enum rdma_ucm_cmd} of
 * {@code rdma/rdma_user_cm.h} (ABI 4). The answers keep the old sizes: the kernel accepts a shorter {@code out}
 * for the structs it grew since (event ECE, query ibdev_index) and copies that much.
 *
 * @param kernelCmd   {@code RDMA_USER_CM_CMD_*}
 * @param size        the kernel command's size, header included ({@code in} = size - 8)
 * @param pointerSlot offset in the kernel command of the u64 the router points at its own buffer (response, or
 *                    SET_OPTION's optval), -1 for none
 * @param out         bytes the kernel writes there ({@code out} of the header)
 * @param answerAt    where that buffer goes in the client's answer (after {@code ret_errno} and padding)
 * @param option      UCMA_CMD_QUERY's option (ADDR 0, PATH 1, GID 2) written at kernel offset 20, or -1
 */
public record UcmaCommand(int func, int kernelCmd, int size, int pointerSlot, int out, int answerAt, int option,
                          int[] copies) {
    static final int CREATE_ID = 0;
    static final int DESTROY_ID = 1;
    static final int BIND_IP = 2;
    static final int RESOLVE_IP = 3;
    static final int RESOLVE_ROUTE = 4;
    static final int QUERY_ROUTE = 5;
    static final int CONNECT = 6;
    static final int LISTEN = 7;
    static final int ACCEPT = 8;
    static final int DISCONNECT = 10;
    static final int INIT_QP_ATTR = 11;
    static final int GET_EVENT = 12;
    static final int SET_OPTION = 14;
    static final int MIGRATE_ID = 18;
    static final int QUERY = 19;
    static final int BIND = 20;
    static final int RESOLVE_ADDR = 21;

    /** {@code struct ucma_abi_event_resp} of the client (and the kernel's old size): 328 bytes. */
    public static final int EVENT_SIZE = 328;
    /** {@code struct ucma_abi_conn_param}: qp_num at 0, private data, ... 272 bytes. */
    static final int CONN_PARAM_SIZE = 272;
    /** {@code char optval[100]} after SET_OPTION's command. */
    static final int OPTVAL_AT = 40;
    static final int OPTVAL_MAX = 100;

    private static final Map<Integer, UcmaCommand> TABLE = Map.ofEntries(
            entry(Func.CM_CREATE_ID, CREATE_ID, 32, 16, 4, 4, -1, 16, 8, 8, 32, 24, 2, 34, 26, 1),
            entry(Func.CM_DESTROY_ID, DESTROY_ID, 24, 8, 4, 4, -1, 24, 16, 4),
            entry(Func.CM_BIND_IP, BIND_IP, 48, -1, 0, 0, -1, 24, 16, 28, 52, 44, 4),
            entry(Func.CM_BIND, BIND, 144, -1, 0, 0, -1, 16, 8, 4, 20, 12, 2, 24, 16, 128),
            entry(Func.CM_RESOLVE_IP, RESOLVE_IP, 72, -1, 0, 0, -1, 12, 8, 28, 40, 36, 28, 68, 64, 4, 72, 68, 4),
            entry(Func.CM_RESOLVE_ADDR, RESOLVE_ADDR, 280, -1, 0, 0, -1,
                    16, 8, 4, 20, 12, 4, 24, 16, 2, 26, 18, 2, 32, 24, 128, 160, 152, 128),
            entry(Func.CM_RESOLVE_ROUTE, RESOLVE_ROUTE, 16, -1, 0, 0, -1, 12, 8, 4, 16, 12, 4),
            entry(Func.CM_QUERY_ROUTE, QUERY_ROUTE, 24, 8, 200, 8, -1, 24, 16, 4),
            entry(Func.CM_UCMA_QUERY_ADDR, QUERY, 24, 8, 272, 8, 0, 24, 16, 4),
            entry(Func.CM_UCMA_QUERY_PATH, QUERY, 24, 8, 440, 8, 1, 24, 16, 4),
            entry(Func.CM_UCMA_QUERY_GID, QUERY, 24, 8, 272, 8, 2, 24, 16, 4),
            entry(Func.CM_LISTEN, LISTEN, 16, -1, 0, 0, -1, 12, 8, 4, 16, 12, 4),
            entry(Func.CM_INIT_QP_ATTR, INIT_QP_ATTR, 24, 8, 144, 4, -1, 24, 16, 4, 28, 20, 4),
            entry(Func.CM_CONNECT, CONNECT, 288, -1, 0, 0, -1, 12, 8, CONN_PARAM_SIZE, 284, 280, 4),
            entry(Func.CM_ACCEPT, ACCEPT, 296, -1, 0, 0, -1, 16, 8, 8, 24, 16, CONN_PARAM_SIZE, 296, 288, 4),
            // librdmacm's ucma_process_conn_resp: an ACCEPT naming only the id (the genuine router's helper).
            entry(Func.CM_UCMA_PROCESS_CONN_RESP, ACCEPT, 296, -1, 0, 0, -1, 296, 288, 4),
            entry(Func.CM_DISCONNECT, DISCONNECT, 12, -1, 0, 0, -1, 12, 8, 4),
            entry(Func.CM_SET_OPTION, SET_OPTION, 32, 8, 0, 0, -1, 24, 16, 4, 28, 20, 4, 32, 24, 4, 36, 28, 4),
            entry(Func.CM_MIGRATE_ID, MIGRATE_ID, 24, 8, 4, 4, -1, 24, 16, 4),
            entry(Func.CM_GET_EVENT, GET_EVENT, 16, 8, EVENT_SIZE, 8, -1));

    private static Map.Entry<Integer, UcmaCommand> entry(int func, int cmd, int size, int slot, int out, int at,
                                                         int option, int... copies) {
        return Map.entry(func, new UcmaCommand(func, cmd, size, slot, out, at, option, copies));
    }

    /** The command of a CM_* function; null for CREATE/DESTROY_EVENT_CHANNEL (no kernel command) and others. */
    public static UcmaCommand of(int func) {
        return TABLE.get(func);
    }

    /** The kernel command for the client's request body: header, the copied fields, the query option. */
    public ByteBuffer kernelCommand(ByteBuffer body) {
        ByteBuffer k = Wire.allocate(size);
        k.putInt(0, kernelCmd);
        k.putShort(4, (short) (size - 8));
        k.putShort(6, (short) out);
        for (int i = 0; i < copies.length; i += 3) {
            k.put(copies[i + 1], body, copies[i], copies[i + 2]);
        }
        if (option >= 0) {
            k.putInt(20, option);
        }
        return k;
    }

    /** The kernel command's offset of the cm_id handle (every command but CREATE_ID and GET_EVENT names one). */
    int idOffset() {
        return switch (kernelCmd) {
            case BIND_IP -> 44;
            case RESOLVE_IP -> 64;
            case CONNECT -> 280;
            case ACCEPT -> 288;
            case DESTROY_ID, QUERY_ROUTE, QUERY, INIT_QP_ATTR, SET_OPTION, MIGRATE_ID -> 16;
            case CREATE_ID, GET_EVENT -> -1;
            default -> 8;                               // BIND, RESOLVE_ADDR, RESOLVE_ROUTE, LISTEN, DISCONNECT
        };
    }

    /** The kernel command's offset of {@code conn_param.qp_num} (CONNECT, ACCEPT), -1 for the others. */
    int qpNumOffset() {
        return func == Func.CM_CONNECT ? 8 : func == Func.CM_ACCEPT ? 16 : -1;
    }

    /**
     * The addresses the overlay map rewrites (freeflow.md §2.7, the genuine router's {@code map_vip}): triples of
     * the kernel offset of a sockaddr, the room it has, and the offset of its u16 size field (-1 for none).
     */
    int[] sockaddrs() {
        return switch (kernelCmd) {
            case BIND_IP -> new int[] {16, 28, -1};
            case BIND -> new int[] {16, 128, 12};
            case RESOLVE_IP -> new int[] {8, 28, -1, 36, 28, -1};
            case RESOLVE_ADDR -> new int[] {24, 128, 16, 152, 128, 18};
            default -> new int[0];
        };
    }
}
