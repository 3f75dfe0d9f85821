// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.posix.PeerCred;
import io.rdmanode.freeflow.internal.posix.Pidfd;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * One client process, identified by the kernel's peer credentials of its connections (pid, uid), never by the
 * FFR_ID it claims (kept as a label). Every handle and key a request names is looked up in its tenant's tables
 * only, so a forged handle can at most name the tenant's own objects. Guarded by the router.
 */
final class Tenant {
    final PeerCred cred;
    final Pidfd liveness;
    final long createdNanos = System.nanoTime();
    int label;
    final Set<Integer> pds = new HashSet<>();
    final Map<Integer, CompletionQueue> cqs = new HashMap<>();
    final Map<Integer, QueuePair> qps = new HashMap<>();
    final Map<Integer, MemoryRegion> mrs = new HashMap<>();
    final Map<Integer, MemoryRegion> mrsByKey = new HashMap<>();
    final Map<Integer, CompChannel> channels = new HashMap<>();
    final Map<Integer, SharedReceiveQueue> srqs = new HashMap<>();
    final Map<Integer, AddressHandle> ahs = new HashMap<>();
    final Handles pdHandles = new Handles();
    final Handles cqHandles = new Handles();
    final Handles qpHandles = new Handles();
    final Handles mrHandles = new Handles();
    final Handles srqHandles = new Handles();
    final Handles ahHandles = new Handles();
    long mrBytes;
    long requests;
    long errors;
    /** Refusals by a per-tenant cap, indexed by {@link Resource#ordinal}. */
    final long[] refusals = new long[Resource.values().length];
    boolean gone;
    /** The eventfd of FFR_GET_ASYNC_FD, -1 until asked: only a tenant that asked gets async events queued. */
    int asyncFd = -1;
    final java.util.ArrayDeque<io.rdmanode.freeflow.internal.wire.AsyncEventResponse> asyncEvents =
            new java.util.ArrayDeque<>();

    Tenant(PeerCred cred, Pidfd liveness, int label) {
        this.cred = cred;
        this.liveness = liveness;
        this.label = label;
    }

    int mailboxes() {
        return cqs.size() + qps.size() + srqs.size();
    }

    /** Shared memory made for this tenant: its MR files and its 2 MiB mailboxes. */
    long shmBytes() {
        return mrBytes + (long) mailboxes() * Mailbox.SIZE;
    }

    String id() {
        return "pid " + cred.pid() + " uid " + cred.uid();
    }
}
