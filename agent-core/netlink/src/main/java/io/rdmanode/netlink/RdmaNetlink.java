// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/**
 * RDMA netlink (NETLINK_RDMA, client RDMA_NL_NLDEV). A NETLINK_RDMA socket belongs to the network namespace
 * of the thread that opened it, and in exclusive mode a device is only visible from the namespace that owns
 * it: every call here opens its socket on the calling thread unless it names another namespace. Every
 * failure is a {@link NetlinkException} carrying the kernel's errno.
 */
@ProviderType
public interface RdmaNetlink {

    /** The RDMA devices visible from the calling thread's network namespace (RDMA_NLDEV_CMD_GET dump). */
    List<RdmaLink> links();

    /** The RDMA devices visible from inside {@code netns} (a netns file such as /var/run/netns/x). */
    List<RdmaLink> linksIn(Path netns);

    /** One device by name, as seen from the calling thread's namespace. */
    default Optional<RdmaLink> link(String name) {
        return links().stream().filter(l -> l.name().equals(name)).findFirst();
    }

    /** RDMA_NLDEV_CMD_SYS_GET: the system-wide netns mode; EINVAL on kernels before 5.3. */
    RdmaNetnsMode netnsMode();

    /** RDMA_NLDEV_CMD_SYS_SET; EBUSY when any network namespace besides init_net exists. */
    void setNetnsMode(RdmaNetnsMode mode);

    /**
     * Moves {@code device} (visible from the calling thread's namespace) into {@code netns}: RDMA_NLDEV_CMD_SET
     * with DEV_INDEX and RDMA_NLDEV_NET_NS_FD. EOPNOTSUPP when the driver cannot disassociate user contexts or
     * the system is in shared mode.
     */
    void moveToNetns(String device, Path netns);

    /**
     * Moves {@code device} from inside {@code podNetns} back into the calling thread's namespace: the device
     * is only addressable from a socket opened inside the pod namespace, so the lookup and the SET run there,
     * with the fd of the caller's namespace opened beforehand. ENODEV when the device is not in the pod.
     */
    void returnFromNetns(String device, Path podNetns);
}
