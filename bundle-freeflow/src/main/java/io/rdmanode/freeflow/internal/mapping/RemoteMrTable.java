// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.mapping;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What other routers announced: per rkey, each announcing host's two addresses of its MR. A WRITE or READ names its
 * remote buffer in the remote application's address space; the remote NIC knows only the remote router's mapping of
 * those pages, so the address is translated: {@code shm_ptr + (remote_addr - mr_ptr)}. The genuine routers key this
 * by rkey alone, so the last of two hosts announcing one key wins; but an rkey is unique on one device only (rxe and
 * mlx5 keys are an object index and one byte), and hosts running the same job register their MRs in the same order.
 * Here each host's announcement is kept apart and a lookup names the QP's peer: that host's announcement when it is a
 * listed host, else the key's only announcement, else none (ambiguous, counted).
 */
public final class RemoteMrTable {

    /** One announced MR. */
    public record RemoteMr(InetAddress host, long mrPtr, long shmPtr) {
    }

    /** Copy-on-write per key: the posting path reads without a lock. */
    private final Map<Integer, Map<InetAddress, RemoteMr>> byKey = new ConcurrentHashMap<>();
    /** Announcements of a key another host had announced too (both kept). */
    final LongAdder collisions = new LongAdder();
    /** Lookups left untranslated because several hosts announced the key and the peer is none of them. */
    final LongAdder ambiguous = new LongAdder();

    void put(int rkey, RemoteMr mr) {
        byKey.compute(rkey, (k, before) -> {
            if (before == null) {
                return Map.of(mr.host(), mr);
            }
            if (!before.containsKey(mr.host())) {
                collisions.increment();
            }
            Map<InetAddress, RemoteMr> next = new HashMap<>(before);
            next.put(mr.host(), mr);
            return Map.copyOf(next);
        });
    }

    /** The key's announcement when exactly one host announced it. */
    public Optional<RemoteMr> get(int rkey) {
        Map<InetAddress, RemoteMr> hosts = byKey.get(rkey);
        return hosts == null || hosts.size() != 1 ? Optional.empty() : Optional.of(hosts.values().iterator().next());
    }

    /** What {@code host} announced for {@code rkey}. */
    public Optional<RemoteMr> get(InetAddress host, int rkey) {
        Map<InetAddress, RemoteMr> hosts = byKey.get(rkey);
        return hosts == null ? Optional.empty() : Optional.ofNullable(hosts.get(host));
    }

    /** How many hosts announced {@code rkey}. */
    public int announcers(int rkey) {
        Map<InetAddress, RemoteMr> hosts = byKey.get(rkey);
        return hosts == null ? 0 : hosts.size();
    }

    /**
     * The address the remote NIC knows for {@code remoteAddr} in the MR of {@code rkey}: when {@code peerListed},
     * only {@code peer}'s announcement counts; otherwise the key's only announcement. Empty when there is none, when
     * several hosts announced the key and the peer is none of them, or when the address lies below the MR's start.
     */
    public OptionalLong translate(int rkey, long remoteAddr, InetAddress peer, boolean peerListed) {
        Map<InetAddress, RemoteMr> hosts = byKey.get(rkey);
        if (hosts == null) {
            return OptionalLong.empty();
        }
        RemoteMr mr;
        if (peerListed) {
            mr = hosts.get(peer);
        } else if (hosts.size() == 1) {
            mr = hosts.values().iterator().next();
        } else {
            ambiguous.increment();
            return OptionalLong.empty();
        }
        if (mr == null || Long.compareUnsigned(remoteAddr, mr.mrPtr()) < 0) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(mr.shmPtr() + (remoteAddr - mr.mrPtr()));
    }

    /** Forgets what {@code host} announced (it left the host list). */
    void forget(InetAddress host) {
        for (Integer key : byKey.keySet()) {
            byKey.computeIfPresent(key, (k, hosts) -> {
                if (!hosts.containsKey(host)) {
                    return hosts;
                }
                Map<InetAddress, RemoteMr> next = new HashMap<>(hosts);
                next.remove(host);
                return next.isEmpty() ? null : Map.copyOf(next);
            });
        }
    }

    /** Announcements held (a key two hosts announced counts twice). */
    public int size() {
        int n = 0;
        for (Map<InetAddress, RemoteMr> hosts : byKey.values()) {
            n += hosts.size();
        }
        return n;
    }
}
