// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.testing;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.rdmanode.kubelet.UnixSocketServers;
import io.rdmanode.kubelet.internal.UdsTransport;
import io.rdmanode.kubelet.internal.UnixSocketServersComponent;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * The kubelet bundle's gRPC-over-Unix-socket parts for other modules' tests, outside the framework: the socket
 * service other bundles serve on ({@link Servers}) and a client transport that dials as kubelet does
 * ({@link Client}). Other modules use these instead of the bundle's internal classes.
 */
public final class UnixSockets {

    private UnixSockets() {
    }

    /** The {@link UnixSocketServers} service as the bundle provides it; {@link #stop()} ends it. */
    public static final class Servers implements UnixSocketServers, AutoCloseable {
        private final UnixSocketServersComponent component = new UnixSocketServersComponent();

        @Override
        public UnixSocketServer serve(Path socket, Set<PosixFilePermission> permissions, List<BindableService> services)
                throws IOException {
            return component.serve(socket, permissions, services);
        }

        public void stop() {
            component.stop();
        }

        @Override
        public void close() {
            stop();
        }
    }

    /** A client transport over Unix sockets: {@code threads} I/O threads named {@code threadPrefix}. */
    public static final class Client implements AutoCloseable {
        private final UdsTransport transport;

        public Client(int threads, String threadPrefix, Executor executor) {
            this.transport = new UdsTransport(threads, threadPrefix, executor);
        }

        public ManagedChannel dial(Path socket) {
            return transport.dial(socket);
        }

        public void close(long timeoutMillis) {
            transport.close(timeoutMillis);
        }

        @Override
        public void close() {
            transport.close();
        }
    }
}
