// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.kubelet.DevicePluginHost;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The device-plugin layer, an OSGi service configured by PID {@code io.rdmanode.deviceplugin.common}
 * ({@code deviceplugin.common { hostDevRoot, cdiSpecDirs }} in the agent's configuration; not
 * {@code io.rdmanode.deviceplugin}, whose HOCON object {@code deviceplugin} also holds every plugin's section). Plugin bundles build candidates, select, serve pools, write CDI
 * specs and report status through it. Thread-safe.
 *
 * @since 1.0
 */
@ProviderType
public interface DevicePluginLayer {

    /** PID of the layer's configuration. */
    String PID = "io.rdmanode.deviceplugin.common";

    LayerSettings settings();

    /** Host-side device paths for Allocate ({@link LayerSettings#paths()}). */
    default DevicePaths paths() {
        return settings().paths();
    }

    /** The candidates of {@code host} at {@code granularity}, sorted by key. */
    List<CandidateDevice> candidates(HostSnapshot host, Granularity granularity);

    /** {@code /dev/infiniband/rdma_cm}, one per host; absent (with the reason) when the module is not loaded. */
    DeviceFile rdmaCm(HostSnapshot host);

    /**
     * Serves {@code pool} on {@code host}, kept up to date from {@code discovery}: computes the first view,
     * starts the server, subscribes to topology changes.
     *
     * @throws IllegalArgumentException when the host already serves the pool's resource name
     */
    ServedPool serve(ResourcePool pool, RdmaDiscovery discovery, DevicePluginHost host);

    /**
     * Serves the pools of {@code set} as they are added to the result, kept up to date from {@code discovery}
     * together: the only way the layer serves pools whose devices depend on each other.
     *
     * @since 2.1
     */
    ServedPoolSet serve(PoolSet set, RdmaDiscovery discovery);

    /**
     * The CDI spec {@code <dir>/<vendor>-<class>_<owner>.json} of kind {@code vendor/class}, as
     * {@link #cdiSpec(Path, String, String, String)} for a resource the layer does not know: it keeps the file
     * while any device of any resource is held.
     *
     * @throws IllegalArgumentException when the kind or owner is not valid in a CDI name
     * @deprecated name the resource, so that the spec of a removed pool goes once its own devices are released
     */
    @Deprecated
    default CdiSpec cdiSpec(Path dir, String kind, String owner) {
        return cdiSpec(dir, kind, owner, "");
    }

    /**
     * Claims the CDI spec {@code <dir>/<vendor>-<class>_<owner>.json} of kind {@code vendor/class} for the pool
     * that serves {@code resourceName}: the pool writes it when it starts; the file stays when the pool or the agent
     * stops, and goes once the pool is retired ({@link ServedPool#retire}) or not configured at a start, and no
     * running container holds a device of {@code resourceName} (see {@link CdiSpec}).
     *
     * @throws IllegalArgumentException when the kind or owner is not valid in a CDI name
     * @since 2.2
     */
    CdiSpec cdiSpec(Path dir, String kind, String owner, String resourceName);

    /**
     * The layer's own line of the ownership rule, at serve time: records what the served resource
     * {@code claim.configuration()} (its extended resource name, unique on the node) holds now (replacing its
     * previous claim) and returns the conflicts it has with the other pools served on the node.
     * A served shared pool with a conflict is reported unhealthy to kubelet with the conflict as its reason, so
     * no device is ever served twice; the configuration validators refuse such a configuration before it
     * applies, this is the second line.
     *
     * @since 2.0
     */
    List<Ownership.Conflict> claim(Ownership.Claim claim);

    /** Forgets what the served resource {@code resourceName} held (it is no longer served). */
    void release(String resourceName);

    /**
     * Device ID to the extended resource kubelet holds it under now: what exclusive pools handed out, kept in the
     * layer's allocation ledger across agent restarts and reconciled with kubelet's PodResources answer. Kubelet
     * keeps its book per resource name, so a held device is offered under no other resource until its holder is
     * gone (the layer leaves it out of every other pool's list; a pool set pins it to its resource).
     *
     * @since 2.1
     */
    Map<String, String> held();

    /**
     * Devices (PCI addresses) owners outside the device-plugin pools hold now ({@link #outsideHolder}), each with
     * its holder's name. A shared pool leaves them out of what its containers get.
     *
     * @since 2.4
     */
    default Map<String, String> heldOutside() {
        return Map.of();
    }

    /**
     * Devices an owner outside the device-plugin pools holds (a DRA driver's prepared claims): while held, no
     * exclusive pool offers them (ListAndWatch lists them as unavailable) and an Allocate naming one is refused,
     * and a shared pool gives them to no new container; {@link OutsideHolder#hold} refuses a device a container
     * holds through a pool, exclusive or shared (a shared pool gives every HCA it matched to each of its
     * containers, so its HCAs are in use while any container holds one of its IDs). One device, one owner on
     * the node. The handle's {@code close()} releases everything it held.
     *
     * @param name who holds (logs, {@code /status}, error messages), e.g. {@code "DRA driver rdma.rdmanode.io"}
     * @since 2.3
     */
    OutsideHolder outsideHolder(String name);

    /** What one outside owner holds ({@link #outsideHolder}). Thread-safe. */
    @ProviderType
    interface OutsideHolder extends AutoCloseable {

        /**
         * Holds {@code deviceIds} (PCI addresses) in addition to what this holder holds, all or none, atomically
         * with the pools' Allocate: empty when held, else each conflicting ID with what holds it (an extended
         * resource, or another outside holder) and nothing changed.
         */
        Map<String, String> hold(java.util.Collection<String> deviceIds);

        /** Releases {@code deviceIds}; the pools offer them again. */
        void release(java.util.Collection<String> deviceIds);

        @Override
        void close();
    }

    /** A registry for one plugin bundle's {@code /status} section. */
    StatusRegistry statusRegistry();

    /** Why the candidate at {@code key} cannot be used, when it is not usable. */
    default Optional<String> problem(CandidateDevice candidate) {
        return candidate.health().problem();
    }
}
