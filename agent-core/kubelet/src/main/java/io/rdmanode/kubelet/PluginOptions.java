// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

/**
 * kubelet {@code deviceplugin/v1beta1} {@code DevicePluginOptions}.
 *
 * @since 1.0
 */
public record PluginOptions(boolean preStartRequired, boolean preferredAllocationAvailable) {
}
