// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

import io.grpc.BindableService;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Set;
import org.osgi.annotation.versioning.ProviderType;

/**
 * gRPC servers on Unix sockets, the way the device-plugin host runs its own: Netty epoll on a shared event
 * loop, handlers off the event loop, the socket file's mode set before anyone is told about it, bounded
 * shutdown and the file removed on close. For bundles that serve a local gRPC API (the CNI bundle's
 * ADD/DEL/CHECK socket, the Freeflow router's control socket). The services are grpc-java
 * {@link BindableService}s, the one gRPC type here: a service generated from a {@code .proto} file is one,
 * and nothing smaller describes it. No Netty type appears. Thread-safe.
 *
 * @since 1.1
 */
@ProviderType
public interface UnixSocketServers {

    /**
     * Binds {@code socket} and serves {@code services} on it until the result is closed. A socket file of a
     * dead server at that path (a killed agent's) is replaced; a live one is not.
     *
     * @param permissions the socket file's mode, e.g. {@code rw-------} for a root-only API
     * @throws IllegalArgumentException when the path does not fit {@code sun_path} (107 bytes), or no service
     * @throws IOException              when the socket cannot be bound (directory missing, in use, no access)
     */
    UnixSocketServer serve(Path socket, Set<PosixFilePermission> permissions, List<BindableService> services)
            throws IOException;

    /** One server started by {@link #serve}. */
    @ProviderType
    interface UnixSocketServer extends AutoCloseable {

        Path socket();

        /** Stops taking calls, waits a bounded time for running ones, deletes the socket file. Idempotent. */
        @Override
        void close();
    }
}
