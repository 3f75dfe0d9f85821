// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs;

/**
 * {@code enum ibv_event_type} ({@code infiniband/verbs.h}; {@code man ibv_get_async_event}), with the C value.
 *
 * @since 1.0
 */
public enum AsyncEventType {
    CQ_ERR(0), QP_FATAL(1), QP_REQ_ERR(2), QP_ACCESS_ERR(3), COMM_EST(4), SQ_DRAINED(5), PATH_MIG(6),
    PATH_MIG_ERR(7), DEVICE_FATAL(8), PORT_ACTIVE(9), PORT_ERR(10), LID_CHANGE(11), PKEY_CHANGE(12),
    SM_CHANGE(13), SRQ_ERR(14), SRQ_LIMIT_REACHED(15), QP_LAST_WQE_REACHED(16), CLIENT_REREGISTER(17),
    GID_CHANGE(18), WQ_FATAL(19),
    /** A value this enum does not know (a newer rdma-core); {@link AsyncEvent#code()} has it. */
    UNKNOWN(-1);

    private final int code;

    AsyncEventType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static AsyncEventType of(int code) {
        for (AsyncEventType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        return UNKNOWN;
    }

    /** Events whose {@code element} is a port number ("affiliated with a port" in the man page). */
    public boolean isPortEvent() {
        return switch (this) {
            case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE -> true;
            default -> false;
        };
    }
}
