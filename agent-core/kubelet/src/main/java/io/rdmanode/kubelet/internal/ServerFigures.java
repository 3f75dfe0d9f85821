// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import java.util.List;

/**
 * What {@link DevicePluginCollector} reads at scrape time, a service inside this bundle (its package is not
 * exported): the host component provides it, answering for the host running now.
 */
public interface ServerFigures {

    /** The servers of every resource served now. */
    List<DevicePluginServer> servers();
}
