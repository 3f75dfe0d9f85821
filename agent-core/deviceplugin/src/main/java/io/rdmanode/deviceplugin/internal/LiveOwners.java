// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.deviceplugin.Ownership;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What every served pool holds now, by extended resource name (unique on the node): the layer's second line of the ownership rule. When a pool's
 * devices change, the other served pools are asked to look again ({@link Served#refresh}, on this table's own
 * thread, so no pool's lock is held while another's is taken).
 */
final class LiveOwners {

    private final Map<String, Ownership.Claim> claims = new LinkedHashMap<>();
    private final List<Served> served = new CopyOnWriteArrayList<>();
    private final ExecutorService notifier = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "rdma-agent-deviceplugin-owners");
        t.setDaemon(true);
        return t;
    });

    List<Ownership.Conflict> claim(Ownership.Claim claim) {
        List<Ownership.Conflict> out = new ArrayList<>();
        boolean changed;
        synchronized (this) {
            Ownership.Claim before = claims.put(claim.configuration(), claim);
            changed = before == null || !before.devices().equals(claim.devices())
                    || before.exclusive() != claim.exclusive();
            for (Ownership.Claim other : claims.values()) {
                if (!other.configuration().equals(claim.configuration())) {
                    out.addAll(Ownership.conflicts(List.of(other, claim)));
                }
            }
        }
        if (changed) {
            othersLookAgain(claim.configuration());
        }
        return out;
    }

    void release(String resourceName) {
        boolean had;
        synchronized (this) {
            had = claims.remove(resourceName) != null;
        }
        if (had) {
            othersLookAgain(resourceName);
        }
    }

    synchronized Map<String, Ownership.Claim> claims() {
        return Map.copyOf(claims);
    }

    void add(Served s) {
        served.add(s);
    }

    void remove(Served s) {
        served.remove(s);
    }

    void close() {
        notifier.shutdownNow();
    }

    private void othersLookAgain(String resourceName) {
        for (Served s : served) {
            if (!s.pool().resourceName().equals(resourceName)) {
                try {
                    notifier.execute(s::refresh);
                } catch (java.util.concurrent.RejectedExecutionException closed) {
                    return;                                      // the layer is stopping
                }
            }
        }
    }
}
