// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

/**
 * How the control server bounds its clients; applied live. {@code workers} execute complete requests (no worker
 * waits for a client's bytes or for a CQ event); {@code maxConnections} open at once in total (past it the server
 * stops accepting and new clients wait in the listen backlog) and {@code maxConnectionsPerTenant} per client
 * process (past it a connection's request is answered EAGAIN and the connection closed); a connection that sent
 * nothing for {@code idleTimeoutMillis} is closed when its process holds nothing here (the timeout is for a client
 * that connected and neither asks nor holds anything): never an event channel's connection (the genuine client
 * keeps one per completion or rdma_cm channel, idle between events, and dies of SIGPIPE if it is cut), nor one of a
 * process holding objects (the genuine librdmacm's pooled connections, quiet for as long as its application
 * pauses); a request stalled half-way is cut at it whatever its process holds; a client that does not read its
 * answer fails the write after {@code writeTimeoutMillis}.
 */
public record ControlSettings(int workers, int maxConnections, int maxConnectionsPerTenant, long idleTimeoutMillis,
                              long writeTimeoutMillis) {

    public static ControlSettings defaults() {
        return new ControlSettings(8, 4096, 128, 60_000, 5_000);
    }

    public ControlSettings withWorkers(int n) {
        return new ControlSettings(n, maxConnections, maxConnectionsPerTenant, idleTimeoutMillis, writeTimeoutMillis);
    }
}
