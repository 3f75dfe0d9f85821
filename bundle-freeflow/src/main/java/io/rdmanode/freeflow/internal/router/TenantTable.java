// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.posix.PeerCred;
import io.rdmanode.freeflow.internal.rdmacm.CmCounts;
import io.rdmanode.freeflow.internal.posix.Pidfd;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client processes the router serves, by pid. A connection's peer credentials pick its tenant; a pid that now
 * belongs to another uid, or whose process exited (its pidfd says so), gets a fresh tenant after the old one is
 * handed to the reclaimer. Guarded by the router's monitor.
 */
final class TenantTable {
    private static final Logger LOG = LoggerFactory.getLogger(TenantTable.class);
    private final Map<Integer, Tenant> byPid = new HashMap<>();
    private final BiConsumer<Tenant, String> reclaimer;

    /** reclaimer frees a tenant's objects and then calls {@link #remove}. */
    TenantTable(BiConsumer<Tenant, String> reclaimer) {
        this.reclaimer = reclaimer;
    }

    /** The tenant of a connection's peer; a new process (or a pid reused by another one) gets fresh tables. */
    Tenant of(PeerCred cred, int label) {
        Tenant t = of(cred);
        t.label = label;
        return t;
    }

    /** The tenant of cred, its label kept (a new one starts with label 0). */
    Tenant of(PeerCred cred) {
        Tenant t = byPid.get(cred.pid());
        if (t != null && (t.cred.uid() != cred.uid() || !t.liveness.alive())) {
            reclaimer.accept(t, "pid reused");
            t = null;
        }
        if (t == null) {
            t = new Tenant(cred, Pidfd.open(cred.pid()), 0);
            byPid.put(cred.pid(), t);
            LOG.info("freeflow client connected pid={} uid={} gid={}", cred.pid(), cred.uid(), cred.gid());
        }
        return t;
    }

    Tenant byPid(int pid) {
        return byPid.get(pid);
    }

    void remove(Tenant t) {
        byPid.remove(t.cred.pid(), t);
    }

    List<Tenant> all() {
        return new ArrayList<>(byPid.values());
    }

    /** Tenants whose process has exited. */
    List<Tenant> exited() {
        List<Tenant> dead = new ArrayList<>();
        for (Tenant t : byPid.values()) {
            if (!t.liveness.alive()) {
                dead.add(t);
            }
        }
        return dead;
    }

    List<TenantFigures> figures(Function<Tenant, CmCounts.Client> cm) {
        List<TenantFigures> out = new ArrayList<>();
        for (Tenant t : byPid.values()) {
            Map<Resource, Long> refused = new EnumMap<>(Resource.class);
            for (Resource r : Resource.values()) {
                refused.put(r, t.refusals[r.ordinal()]);
            }
            out.add(new TenantFigures(t.cred.pid(), t.cred.uid(), t.label, t.pds.size(), t.cqs.size(), t.qps.size(),
                    t.srqs.size(), t.mrs.size(), t.mrBytes, t.requests, t.errors, t.channels.size(), t.shmBytes(),
                    refused, cm.apply(t)));
        }
        return out;
    }
}
