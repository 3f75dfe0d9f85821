// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.wire.Wire;
import java.util.BitSet;

/** Handle numbers of one kind within one tenant: 1..MAP_SIZE-1, lowest free first (the client indexes arrays). */
final class Handles {
    private final BitSet used = new BitSet(Wire.MAP_SIZE);

    Handles() {
        used.set(0);
    }

    /** A free handle, or 0 when all are taken. */
    int take() {
        int h = used.nextClearBit(1);
        if (h >= Wire.MAP_SIZE) {
            return 0;
        }
        used.set(h);
        return h;
    }

    void free(int h) {
        if (h > 0) {
            used.clear(h);
        }
    }
}
