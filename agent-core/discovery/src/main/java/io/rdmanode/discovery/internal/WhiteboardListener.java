// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import org.osgi.service.component.ComponentServiceObjects;

/** A whiteboard listener, obtained on its first event and released when it goes. */
final class WhiteboardListener implements RdmaTopologyListener {
    private final ComponentServiceObjects<RdmaTopologyListener> objects;
    private RdmaTopologyListener service;

    WhiteboardListener(ComponentServiceObjects<RdmaTopologyListener> objects) {
        this.objects = objects;
    }

    @Override
    public synchronized void topologyChanged(HostSnapshot snapshot, TopologyDiff diff) {
        if (service == null) {
            service = objects.getService();
        }
        if (service != null) {
            service.topologyChanged(snapshot, diff);
        }
    }

    synchronized void release() {
        if (service != null) {
            try {
                objects.ungetService(service);
            } catch (IllegalStateException | IllegalArgumentException gone) {
                // the listener's bundle is already stopping
            }
            service = null;
        }
    }
}
