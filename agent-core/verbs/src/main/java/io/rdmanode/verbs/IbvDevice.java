// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs;

import java.util.List;

/**
 * What libibverbs says about one device ({@code ibv_query_device}, {@code ibv_query_port} and the GID queries).
 *
 * @param name         the libibverbs device name ({@code mlx5_0}, {@code rxe0})
 * @param nodeGuid     {@code xxxx:xxxx:xxxx:xxxx}, as sysfs prints it ({@code ibv_get_device_guid})
 * @param sysImageGuid {@code ibv_device_attr.sys_image_guid}, same format
 * @param fwVer        {@code ibv_device_attr.fw_ver}; rdma-core prints {@code 0.0.0} when the kernel has none
 * @param vendorId     IEEE OUI ({@code 0xffffff} for Soft-RoCE)
 * @param ports        numbered from 1, {@code phys_port_cnt} of them
 * @since 1.0
 */
public record IbvDevice(String name, String nodeGuid, String sysImageGuid, String fwVer, long vendorId,
                        long vendorPartId, long hwVer, int maxQp, List<IbvPort> ports) {

    public IbvDevice {
        ports = List.copyOf(ports);
    }
}
