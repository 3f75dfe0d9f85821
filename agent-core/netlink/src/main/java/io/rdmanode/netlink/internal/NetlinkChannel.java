// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

/**
 * One netlink conversation: the real socket, or a fake kernel peer in tests. Opened in (and bound to) the
 * network namespace of the thread that opens it.
 */
public interface NetlinkChannel extends AutoCloseable {

    void send(byte[] message);

    /** Bytes received into {@code buf}, 0 on timeout. */
    int receive(byte[] buf);

    @Override
    void close();

    /** Opens a NETLINK_RDMA channel in the calling thread's namespace. */
    interface Factory {
        NetlinkChannel openRdma();
    }
}
