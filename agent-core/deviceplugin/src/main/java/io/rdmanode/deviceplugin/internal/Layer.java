// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.deviceplugin.CandidateDevice;
import io.rdmanode.deviceplugin.CdiSpec;
import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Granularity;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.Ownership;
import io.rdmanode.deviceplugin.PoolSet;
import io.rdmanode.deviceplugin.ResourcePool;
import io.rdmanode.deviceplugin.ServedPool;
import io.rdmanode.deviceplugin.ServedPoolSet;
import io.rdmanode.deviceplugin.StatusRegistry;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.kubelet.DevicePluginHost;
import java.nio.file.Path;
import java.util.List;

/** The layer's implementation, used by the OSGi component; tests and tools construct it directly. */
public final class Layer implements DevicePluginLayer {

    private final LayerSettings settings;
    private final CdiSpecs cdi;
    private final LiveOwners owners = new LiveOwners();

    public Layer(LayerSettings settings) {
        this.settings = settings;
        this.cdi = new CdiSpecs();
        settings.cdiSpecDirs().forEach(cdi::cleanOnce);
    }

    @Override
    public LayerSettings settings() {
        return settings;
    }

    @Override
    public List<CandidateDevice> candidates(HostSnapshot host, Granularity granularity) {
        return Candidates.of(host, granularity);
    }

    @Override
    public DeviceFile rdmaCm(HostSnapshot host) {
        return Candidates.rdmaCm(host);
    }

    @Override
    public ServedPool serve(ResourcePool pool, RdmaDiscovery discovery, DevicePluginHost host) {
        ServedSet alone = new ServedSet(PoolSet.INDEPENDENT, discovery, owners, true);
        try {
            return alone.serve(pool, host);
        } catch (RuntimeException e) {
            alone.close();
            throw e;
        }
    }

    @Override
    public ServedPoolSet serve(PoolSet set, RdmaDiscovery discovery) {
        return new ServedSet(set, discovery, owners, false);
    }

    @Override
    public CdiSpec cdiSpec(Path dir, String kind, String owner) {
        return cdi.spec(dir, kind, owner);
    }

    @Override
    public List<Ownership.Conflict> claim(Ownership.Claim claim) {
        return owners.claim(claim);
    }

    @Override
    public void release(String resourceName) {
        owners.release(resourceName);
    }

    /** The live table, for {@code /status}. */
    public java.util.Map<String, Ownership.Claim> claims() {
        return owners.claims();
    }

    @Override
    public StatusRegistry statusRegistry() {
        return new Registry();
    }

    /** Stops the ownership table's notifier. */
    public void close() {
        owners.close();
    }

    /** Stale specs removed since this layer started, for {@code /status}. */
    public List<String> staleCdiSpecsRemoved() {
        return cdi.removed();
    }
}
