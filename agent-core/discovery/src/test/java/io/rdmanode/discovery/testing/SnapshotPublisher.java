// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.testing;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The snapshot-and-listeners half of a test {@code RdmaDiscovery} over an edited tree: a scan is published
 * (revision + 1, listeners told) only when its content changed, as discovery's engine does; an unchanged host
 * keeps its revision.
 */
public final class SnapshotPublisher {

    private final List<RdmaTopologyListener> listeners = new CopyOnWriteArrayList<>();
    private volatile HostSnapshot snapshot;

    /** @param first the first full scan; it becomes revision 1 */
    public SnapshotPublisher(HostSnapshot first) {
        this.snapshot = first.withRevision(1, Instant.now());
    }

    public HostSnapshot snapshot() {
        return snapshot;
    }

    /** {@code next} as the new snapshot when it differs from the current one; the current one otherwise. */
    public synchronized HostSnapshot publish(HostSnapshot next) {
        HostSnapshot previous = snapshot;
        if (next.withRevision(0, Instant.EPOCH).equals(previous.withRevision(0, Instant.EPOCH))) {
            return previous;
        }
        HostSnapshot published = next.withRevision(previous.revision() + 1, Instant.now());
        snapshot = published;
        TopologyDiff diff = new TopologyDiff(previous.revision(), published.revision(), List.of(), List.of(),
                List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(),
                List.of("test rescan"));
        listeners.forEach(l -> l.topologyChanged(published, diff));
        return published;
    }

    public void addListener(RdmaTopologyListener listener) {
        listeners.add(listener);
    }

    public void removeListener(RdmaTopologyListener listener) {
        listeners.remove(listener);
    }

    public int listenerCount() {
        return listeners.size();
    }
}
