// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import java.util.List;

/**
 * What {@link HeldDevicesCollector} reads at scrape time, a service inside this bundle: the layer component
 * answers for the layer running now.
 */
public interface HeldFigures {

    /** One held device: its resource, ID and holder ({@code namespace/pod/container}, empty until kubelet said). */
    record Held(String resource, String deviceId, String holder) { }

    List<Held> heldDevices();

    /** Devices released since start because kubelet listed no running container holding them. */
    long released();
}
