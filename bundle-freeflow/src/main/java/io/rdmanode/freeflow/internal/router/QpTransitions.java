// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static io.rdmanode.freeflow.internal.router.QueuePair.ERR;
import static io.rdmanode.freeflow.internal.router.QueuePair.INIT;
import static io.rdmanode.freeflow.internal.router.QueuePair.RESET;
import static io.rdmanode.freeflow.internal.router.QueuePair.RTR;
import static io.rdmanode.freeflow.internal.router.QueuePair.RTS;
import static io.rdmanode.freeflow.internal.router.QueuePair.SQD;
import static io.rdmanode.freeflow.internal.router.QueuePair.SQE;

import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.ModifyQpRequest;
import io.rdmanode.freeflow.internal.wire.WireException;

/**
 * The RC and UC QP state machine of the verbs spec (IBA 1.4 §11.2.4.2 table, as rdma-core's ibv_modify_qp
 * documents): which transitions exist and which attribute-mask bits each requires. UC has no responder resources,
 * RNR timer, ACK timeout or retries, so INIT→RTR and RTR→RTS need fewer bits.
 */
final class QpTransitions {
    static final int STATE = 1;
    static final int ACCESS_FLAGS = 1 << 3;
    static final int PKEY_INDEX = 1 << 4;
    static final int PORT = 1 << 5;
    static final int QKEY = 1 << 6;
    static final int AV = 1 << 7;
    static final int PATH_MTU = 1 << 8;
    static final int TIMEOUT = 1 << 9;
    static final int RETRY_CNT = 1 << 10;
    static final int RNR_RETRY = 1 << 11;
    static final int RQ_PSN = 1 << 12;
    static final int MAX_QP_RD_ATOMIC = 1 << 13;
    static final int MIN_RNR_TIMER = 1 << 15;
    static final int SQ_PSN = 1 << 16;
    static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    static final int DEST_QPN = 1 << 20;

    private QpTransitions() {
    }

    /**
     * The state MODIFY_QP moves {@code qp} to, after checking the transition exists and the mask holds the bits it
     * requires (what a device checks itself, for a transport without one); EINVAL otherwise.
     */
    static int check(QueuePair qp, ModifyQpRequest r) {
        int mask = r.attrMask();
        int to = (mask & STATE) != 0 ? r.qpState() : qp.state;
        if (to < RESET || to > ERR) {
            throw new WireException(Errno.EINVAL, "QP state " + to + " does not exist");
        }
        int required = required(qp.state, to, qp.type);
        if ((mask & STATE) == 0) {
            required = 0;
        } else if (required < 0) {
            throw new WireException(Errno.EINVAL, "QP " + qp.qpn + ": no transition " + QueuePair.stateName(qp.state)
                    + " -> " + QueuePair.stateName(to));
        }
        if ((mask & required) != required) {
            throw new WireException(Errno.EINVAL, "QP " + qp.qpn + " " + QueuePair.stateName(qp.state) + " -> "
                    + QueuePair.stateName(to) + ": attr_mask 0x" + Integer.toHexString(mask) + " lacks 0x"
                    + Integer.toHexString(required & ~mask));
        }
        return to;
    }

    /** Required mask bits for from→to on a QP of {@code type}, or -1 when the transition does not exist. */
    static int required(int from, int to, int type) {
        int bits = required(from, to);
        if (type == QueuePair.TYPE_UC && from == INIT && to == RTR) {
            return bits & ~(MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER);
        }
        if (type == QueuePair.TYPE_UC && from == RTR && to == RTS) {
            return bits & ~(TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC);
        }
        return bits;
    }

    /** Required mask bits for from→to on an RC QP, or -1 when the transition does not exist. */
    static int required(int from, int to) {
        if (to == RESET || to == ERR) {
            return STATE;
        }
        return switch (from * 16 + to) {
            case RESET * 16 + INIT -> STATE | PKEY_INDEX | PORT | ACCESS_FLAGS;
            case INIT * 16 + INIT, RTS * 16 + RTS, SQD * 16 + RTS, SQE * 16 + RTS, RTS * 16 + SQD, SQD * 16 + SQD -> STATE;
            case INIT * 16 + RTR -> STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER;
            case RTR * 16 + RTS -> STATE | SQ_PSN | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC;
            default -> -1;
        };
    }

    /** IB min_rnr_timer encoding (IBA table 45) in nanoseconds; 0 means 655.36 ms. */
    static long rnrDelayNanos(int code) {
        double[] ms = {655.36, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.12, 0.16, 0.24, 0.32, 0.48, 0.64, 0.96, 1.28,
            1.92, 2.56, 3.84, 5.12, 7.68, 10.24, 15.36, 20.48, 30.72, 40.96, 61.44, 81.92, 122.88, 163.84, 245.76,
            327.68, 491.52};
        return (long) (ms[code & 31] * 1_000_000);
    }
}
