// SPDX-License-Identifier: Apache-2.0
/**
 * What every device-plugin bundle shares, on top of the device-plugin host ({@code io.rdmanode.kubelet}) and
 * discovery ({@code io.rdmanode.discovery}): the {@link io.rdmanode.deviceplugin.CandidateDevice candidate
 * device} view of a host snapshot at two granularities (one per HCA, one per PCI function / VF), one
 * {@link io.rdmanode.deviceplugin.Selectors selector engine} with the selector kinds of both peer plugins and a
 * reason for every exclusion, the discovery-driven {@link io.rdmanode.deviceplugin.ServedPool served-pool}
 * lifecycle, the {@link io.rdmanode.deviceplugin.CdiSpec CDI spec} writer, the node's
 * {@link io.rdmanode.deviceplugin.DevicePaths device-node paths} and the {@link io.rdmanode.deviceplugin.PoolStatus
 * status} a pool shows, and the node's device-ownership rule: {@link io.rdmanode.deviceplugin.Ownership} (one
 * owner per device; an exclusive pool shares no device), {@link io.rdmanode.deviceplugin.DeviceOwner} (a bundle's
 * pools as owners, claims computed with the bundle's own compute function) and the
 * {@link io.rdmanode.deviceplugin.DeviceOwnership} table service that joins them, with
 * {@link io.rdmanode.deviceplugin.PoolConfigurations} to read proposed configurations as the components do.
 * Entry point: the {@link io.rdmanode.deviceplugin.DevicePluginLayer} service.
 *
 * <p>2.0: {@code DevicePluginLayer.create} is gone (the API no longer reaches into its implementation; tests
 * construct {@code internal.Layer}); {@code DevicePluginLayer.claim/release} and {@code ResourcePool.exclusive}
 * are new.
 *
 * <p>2.1: {@link io.rdmanode.deviceplugin.PoolSet pool sets}: pools computed together (SR-IOV's first match
 * wins), served by {@code DevicePluginLayer.serve(PoolSet, RdmaDiscovery)}; {@code DevicePluginLayer.held()}, the
 * allocation ledger's devices held by running containers; {@code PoolConfigurations.isPool},
 * {@code extendedResourceName} and {@code DEFAULT_RESOURCE_PREFIX} (the layer's validator checks one pool per
 * extended resource name across bundles); selector values are refused with
 * {@code io.rdmanode.agent.SettingException}, naming the selector kind.
 *
 * <p>2.2: state the runtime and kubelet read outlives the process: {@code CdiSpec.close} and
 * {@code ServedPool.close} remove no file; {@code ServedPool.retire} (a pool removed from the configuration) and
 * {@code DevicePluginLayer.cdiSpec(dir, kind, owner, resourceName)} (the spec stays while devices of that resource
 * are held) are new.
 *
 * @since 1.0
 */
@Export
@Version("2.4.0")
package io.rdmanode.deviceplugin;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
