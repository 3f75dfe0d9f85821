// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.netlink;

import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.netlink.Netlink;
import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.RdmaNetlink;
import io.rdmanode.netlink.RdmaNetnsMode;

/**
 * The RDMA subsystem's netns mode as discovery reports it, read through the netlink bundle
 * ({@code RDMA_NLDEV_CMD_SYS_GET}); every failure becomes UNKNOWN with the reason. Kernels before 5.3 answer
 * EINVAL; without ib_core the socket itself fails with EPROTONOSUPPORT.
 */
public final class RdmaNetnsModeReader {

    private RdmaNetnsModeReader() {
    }

    public static NetnsMode read() {
        return read(Netlink.rdma());
    }

    static NetnsMode read(RdmaNetlink rdma) {
        try {
            return NetnsMode.of(rdma.netnsMode() == RdmaNetnsMode.EXCLUSIVE ? NetnsMode.Mode.EXCLUSIVE
                    : NetnsMode.Mode.SHARED);
        } catch (NetlinkException e) {
            if (e.errno() == NetlinkException.EINVAL) {
                return NetnsMode.unknown("RDMA netlink SYS_GET failed: errno 22 (EINVAL: kernel older than 5.3 has"
                        + " no netns mode; it behaves as shared)");
            }
            return NetnsMode.unknown("RDMA netlink unavailable (" + e.getMessage() + "; is ib_core loaded?)");
        }
    }
}
