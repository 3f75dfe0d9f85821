// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink;

import org.osgi.annotation.versioning.ProviderType;

/** A running kernel-event listener; {@link #close()} closes its sockets and joins its threads. */
@ProviderType
public interface Listening extends AutoCloseable {

    @Override
    void close();
}
