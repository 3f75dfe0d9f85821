// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import java.util.HashMap;
import java.util.Map;

/**
 * The router's QP numbers: one 24-bit space shared by every tenant (a QPN is what a peer names in MODIFY_QP, so it
 * must be unique across tenants), allocated from a random start and wrapping past 0xffffff to 2 (0 and 1 are the
 * special QPs). A transport finds the peer of a connected QP here. Guarded by the router's monitor.
 */
final class QpnSpace {
    private final Map<Integer, QueuePair> qps = new HashMap<>();
    private int next;

    QpnSpace(int start) {
        this.next = start;
    }

    /** A QPN no live QP holds. */
    int allocate() {
        for (;;) {
            int q = next;
            next = next >= 0xffffff ? 2 : next + 1;
            if (!qps.containsKey(q)) {
                return q;
            }
        }
    }

    void bind(QueuePair qp) {
        qps.put(qp.qpn, qp);
    }

    void release(QueuePair qp) {
        qps.remove(qp.qpn, qp);
    }

    /** The live QP numbered qpn, or null. */
    QueuePair get(int qpn) {
        return qps.get(qpn);
    }
}
