// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.probe;

import io.rdmanode.discovery.RdmaDiscovery;
import org.osgi.annotation.versioning.ProviderType;

/** A component that consumes the discovery service the way a real bundle does; two of them exist. */
@ProviderType
public interface DiscoveryConsumer {

    String consumerName();

    /** The service instance this consumer was given. */
    RdmaDiscovery discovery();

    /** The revision of the last snapshot this consumer was told about (its listener), or read at activation. */
    long lastRevision();
}
