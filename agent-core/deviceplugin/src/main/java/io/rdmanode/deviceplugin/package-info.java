// SPDX-License-Identifier: Apache-2.0
/**
 * What every device-plugin bundle shares, on top of the device-plugin host ({@code io.rdmanode.kubelet}) and
 * discovery ({@code io.rdmanode.discovery}): the {@link io.rdmanode.deviceplugin.CandidateDevice candidate
 * device} view of a host snapshot at two granularities (one per HCA, one per PCI function / VF), one
 * {@link io.rdmanode.deviceplugin.Selectors selector engine} with the selector kinds of both peer plugins and a
 * reason for every exclusion, the discovery-driven {@link io.rdmanode.deviceplugin.ServedPool served-pool}
 * lifecycle, the {@link io.rdmanode.deviceplugin.CdiSpec CDI spec} writer, the node's
 * {@link io.rdmanode.deviceplugin.DevicePaths device-node paths} and the {@link io.rdmanode.deviceplugin.PoolStatus
 * status} a pool shows. Entry point: the {@link io.rdmanode.deviceplugin.DevicePluginLayer} service.
 *
 * @since 1.0
 */
@Export
@Version("2.0.0")
package io.rdmanode.deviceplugin;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
