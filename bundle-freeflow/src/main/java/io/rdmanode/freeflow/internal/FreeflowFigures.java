// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal;

import io.rdmanode.freeflow.internal.router.ControlServer;
import io.rdmanode.freeflow.internal.router.Router;

/**
 * What {@link FreeflowCollector} reads at scrape time, a service inside this bundle (its package is not
 * exported): the Freeflow component provides it. The router and its control server are the ones running now,
 * new ones after a restart for a new socket; both null while the router waits for its device
 * ({@code freeflow.deviceSelectors} without the device-plugin layer's chooser).
 */
public interface FreeflowFigures {

    Router router();

    ControlServer server();
}
