// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.deviceplugin.PoolSet;
import io.rdmanode.deviceplugin.ResourcePool;
import io.rdmanode.deviceplugin.ServedPool;
import io.rdmanode.deviceplugin.ServedPoolSet;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.kubelet.DevicePluginHost;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool set being served: the one discovery subscription of its members. Every change (a snapshot, a member
 * served or stopped, a refresh) prepares the set and then recomputes every member with the same snapshot, under
 * the set's lock, so members never see two assignments at once. A set made for one pool
 * ({@link Layer#serve(ResourcePool, RdmaDiscovery, DevicePluginHost)}) stops listening when that pool stops.
 */
final class ServedSet implements ServedPoolSet, RdmaTopologyListener {

    private static final Logger LOG = LoggerFactory.getLogger(ServedSet.class);

    private final PoolSet set;
    private final RdmaDiscovery discovery;
    private final Layer layer;
    private final boolean alone;
    private final List<Served> members = new ArrayList<>();
    private boolean closing;

    ServedSet(PoolSet set, RdmaDiscovery discovery, Layer layer, boolean alone) {
        this.set = set;
        this.discovery = discovery;
        this.layer = layer;
        this.alone = alone;
        discovery.addListener(this);             // before the first snapshot is read: no change falls between
    }

    @Override
    public synchronized ServedPool serve(ResourcePool pool, DevicePluginHost host) {
        if (closing) {
            throw new IllegalStateException("pool set closed; pool " + pool.name() + " not served");
        }
        layer.reconcileBeforeChange();
        HostSnapshot snapshot = discovery.snapshot();
        List<ResourcePool> next = pools();
        next.add(pool);
        set.prepare(snapshot, next);
        Served member;
        try {
            member = new Served(pool, snapshot, host, layer.owners(), layer.heldDevices(), this);
        } catch (RuntimeException e) {
            recompute(snapshot);                  // the set as it was, without the pool
            throw e;
        }
        members.add(member);
        layer.serving(pool);
        members.stream().filter(m -> m != member).forEach(m -> m.update(snapshot));
        return member;
    }

    @Override
    public synchronized List<ServedPool> members() {
        return List.copyOf(members);
    }

    @Override
    public void topologyChanged(HostSnapshot snapshot, TopologyDiff diff) {
        recompute(snapshot);
    }

    @Override
    public void refresh() {
        recompute(discovery.snapshot());
    }

    private synchronized void recompute(HostSnapshot snapshot) {
        if (closing) {
            return;
        }
        try {
            set.prepare(snapshot, pools());
        } catch (RuntimeException e) {
            // A plugin bug must not stop the discovery thread; the members keep their last views.
            LOG.error("pool set not recomputed revision={} pools={}", snapshot.revision(),
                    pools().stream().map(ResourcePool::name).toList(), e);
            return;
        }
        members.forEach(m -> m.update(snapshot));
    }

    /** {@code member} stopped: the others are recomputed without it (its devices may go to them). */
    void removed(Served member) {
        boolean stopListening;
        synchronized (this) {
            if (!members.remove(member) || closing) {
                return;
            }
            stopListening = alone && members.isEmpty();
            if (stopListening) {
                closing = true;
            }
        }
        if (stopListening) {
            discovery.removeListener(this);
            layer.forget(this);
        } else {
            layer.reconcileBeforeChange();
            refresh();
        }
    }

    /** A member's pool stopped; {@code retired}: its configuration is gone, what it leaves goes once released. */
    void stopped(ResourcePool pool, boolean retired) {
        layer.stopped(pool, retired);
    }

    private List<ResourcePool> pools() {
        List<ResourcePool> list = new ArrayList<>(members.size() + 1);
        members.forEach(m -> list.add(m.pool()));
        return list;
    }

    @Override
    public void close() {
        List<Served> stopping;
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
            stopping = List.copyOf(members);
            members.clear();
        }
        discovery.removeListener(this);
        layer.forget(this);
        stopping.forEach(Served::close);
    }
}
