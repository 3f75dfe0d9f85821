// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.probe.internal;

import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.probe.DiscoveryConsumer;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** Consumer B of the shared discovery service (the listener is registered through the whiteboard). */
@Component(service = {DiscoveryConsumer.class, RdmaTopologyListener.class})
public final class DiscoveryConsumerB extends RecordingDiscoveryConsumer {

    @Activate
    public DiscoveryConsumerB(@Reference RdmaDiscovery discovery) {
        super(discovery);
    }

    @Override
    public String consumerName() {
        return "B";
    }
}
