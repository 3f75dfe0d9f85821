// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.probe.internal;

import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.probe.DiscoveryConsumer;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/** Consumer A of the shared discovery service (its listener added through the service's one channel). */
@Component(service = DiscoveryConsumer.class)
public final class DiscoveryConsumerA extends RecordingDiscoveryConsumer {

    @Activate
    public DiscoveryConsumerA(@Reference RdmaDiscovery discovery) {
        super(discovery);
    }

    @Deactivate
    void stop() {
        close();
    }

    @Override
    public String consumerName() {
        return "A";
    }
}
