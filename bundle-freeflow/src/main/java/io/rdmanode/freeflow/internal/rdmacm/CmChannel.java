// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * One client event channel: the router's own file on {@code /dev/infiniband/rdma_cm} ({@code kernelFd}; the
 * kernel keeps every cm_id created through it in that file, so one client's ids are out of reach of another's
 * commands), the eventfd the client gets and may poll (its count is the number of events queued), the channel's
 * number in the client's requests ({@code ec.fd}, per client), the events fetched from the kernel and not yet taken,
 * the parked GET_EVENTs, and the cm_ids the client holds on it. Guarded by its own monitor.
 */
public final class CmChannel {
    final Object owner;
    final int number;
    final int kernelFd;
    final int eventFd;
    final ArrayDeque<ByteBuffer> events = new ArrayDeque<>();
    final ArrayDeque<CmEventWaiter> waiters = new ArrayDeque<>();
    final Set<Integer> ids = new HashSet<>();
    /** By cm_id: the address INIT_QP_ATTR gave for RTR (the kernel's route), see {@link RdmaCm#routeGidIndex}. */
    final Map<Integer, Route> routes = new HashMap<>();
    boolean closed;

    /** A connection's address as the kernel's CM resolved it: the peer's QPN and GID, the device's source GID index. */
    record Route(int destQpn, byte[] dgid, int sgidIndex) {
    }

    CmChannel(Object owner, int number, int kernelFd, int eventFd) {
        this.owner = owner;
        this.number = number;
        this.kernelFd = kernelFd;
        this.eventFd = eventFd;
    }

    /** The channel's number for its client: ec.fd in the client's requests. */
    public int number() {
        return number;
    }

    /** The descriptor passed to the client (SCM_RIGHTS), readable while events wait. */
    public int eventFd() {
        return eventFd;
    }

    /**
     * Takes the queued events of cm_id {@code id} out (a connection request names the new id, and is counted on
     * its listener: it stays). Returns how many: the kernel counted them as reported, the client will never ack.
     */
    int drop(int id) {
        int n = 0;
        for (Iterator<ByteBuffer> it = events.iterator(); it.hasNext(); ) {
            ByteBuffer e = it.next();
            if (e.getInt(8 + 8) == id && e.getInt(8 + 12) != RdmaCm.CONNECT_REQUEST) {
                it.remove();
                n++;
            }
        }
        return n;
    }
}
