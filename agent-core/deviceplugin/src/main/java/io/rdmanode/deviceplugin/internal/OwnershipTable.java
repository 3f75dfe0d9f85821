// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.deviceplugin.DeviceOwner;
import io.rdmanode.deviceplugin.DeviceOwnership;
import io.rdmanode.deviceplugin.Ownership;
import io.rdmanode.deviceplugin.PoolConfigurations;
import io.rdmanode.discovery.HostSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ownership table as a service: the {@link DeviceOwner}s registered on the node (the device-plugin bundles,
 * later a DRA driver), each asked for its own configurations' claims.
 */
@Component(service = DeviceOwnership.class)
public final class OwnershipTable implements DeviceOwnership {

    private static final Logger LOG = LoggerFactory.getLogger(OwnershipTable.class);

    private final List<DeviceOwner> owners = new CopyOnWriteArrayList<>();

    public OwnershipTable() {
    }

    /** A table over fixed owners (tests, tools). */
    public OwnershipTable(List<DeviceOwner> owners) {
        this.owners.addAll(owners);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addOwner(DeviceOwner owner) {
        owners.add(owner);
    }

    void removeOwner(DeviceOwner owner) {
        owners.remove(owner);
    }

    @Override
    public List<Ownership.Claim> claims(Map<String, Map<String, Object>> configurations, HostSnapshot host) {
        List<Ownership.Claim> out = new ArrayList<>();
        for (DeviceOwner o : owners) {
            try {
                out.addAll(o.claims(PoolConfigurations.of(configurations, o.factoryPid()), host));
            } catch (RuntimeException e) {
                // One owner's bug must not refuse every configuration; its validator speaks for its pools.
                LOG.warn("ownership claims not computed owner={}: {}", o.factoryPid(), e.toString());
            }
        }
        return out;
    }
}
