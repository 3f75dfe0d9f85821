// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import java.net.URI;

/**
 * Registered while the endpoint listens, with the service properties {@code io.rdmanode.http.port} (the port
 * actually bound, an Integer) and {@code io.rdmanode.http.url}. Tests and tools find an ephemeral port with the
 * filter {@code (io.rdmanode.http.port=*)}; the properties are the contract, this type stays private.
 */
@FunctionalInterface
interface BoundHttpEndpoint {

    URI uri();
}
