// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink;

/**
 * One RDMA device as RDMA_NLDEV_CMD_GET reports it.
 *
 * @param index    RDMA_NLDEV_ATTR_DEV_INDEX, the kernel's device index (stable while the device exists)
 * @param name     RDMA_NLDEV_ATTR_DEV_NAME, e.g. {@code mlx5_3}
 * @param ports    RDMA_NLDEV_ATTR_PORT_INDEX in a GET reply: the number of ports
 * @param nodeGuid RDMA_NLDEV_ATTR_NODE_GUID, 0 when absent
 * @param protocol RDMA_NLDEV_ATTR_DEV_PROTOCOL ({@code ib}, {@code roce}, {@code iw}…), empty when absent
 */
public record RdmaLink(int index, String name, int ports, long nodeGuid, String protocol) {
}
