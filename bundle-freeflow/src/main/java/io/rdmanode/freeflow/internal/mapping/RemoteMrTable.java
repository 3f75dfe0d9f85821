// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.mapping;

import java.net.InetAddress;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What other routers announced: rkey to the announcing host and the two addresses of the MR. A WRITE or READ names
 * its remote buffer in the remote application's address space; the remote NIC knows only the remote router's
 * mapping of those pages, so the address is translated: {@code shm_ptr + (remote_addr - mr_ptr)}. Keyed by rkey,
 * as in the genuine routers (an rkey names one MR on its device); a host announcing an rkey another host announced
 * replaces it, and that is counted, since two NICs can hand out the same key.
 */
public final class RemoteMrTable {

    /** One announced MR. */
    public record RemoteMr(InetAddress host, long mrPtr, long shmPtr) {
    }

    private final Map<Integer, RemoteMr> byKey = new ConcurrentHashMap<>();
    final LongAdder collisions = new LongAdder();

    void put(int rkey, RemoteMr mr) {
        RemoteMr before = byKey.put(rkey, mr);
        if (before != null && !before.host().equals(mr.host())) {
            collisions.increment();
        }
    }

    public Optional<RemoteMr> get(int rkey) {
        return Optional.ofNullable(byKey.get(rkey));
    }

    /**
     * The address the remote NIC knows for {@code remoteAddr} in the MR of {@code rkey}; empty when no router
     * announced that key, or the address lies below the MR's start.
     */
    public OptionalLong translate(int rkey, long remoteAddr) {
        RemoteMr mr = byKey.get(rkey);
        if (mr == null || Long.compareUnsigned(remoteAddr, mr.mrPtr()) < 0) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(mr.shmPtr() + (remoteAddr - mr.mrPtr()));
    }

    /** Forgets what {@code host} announced (it left the host list). */
    void forget(InetAddress host) {
        byKey.values().removeIf(mr -> mr.host().equals(host));
    }

    public int size() {
        return byKey.size();
    }
}
