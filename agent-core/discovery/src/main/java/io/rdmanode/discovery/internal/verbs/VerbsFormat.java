// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import io.rdmanode.discovery.Gid;
import io.rdmanode.discovery.RdmaPort.LinkLayer;
import io.rdmanode.verbs.IbvGid;
import io.rdmanode.verbs.IbvPort;
import java.util.Optional;

/**
 * Verbs values written the way the kernel writes them in {@code sysfs-class-infiniband}, so that both backends
 * describe a device with the same strings.
 */
final class VerbsFormat {

    private VerbsFormat() {
    }

    /**
     * {@code ports/N/rate} as the kernel's {@code rate_show} (drivers/infiniband/core/sysfs.c) computes it from
     * {@code active_width} × {@code active_speed}: {@code 100 Gb/sec (4X EDR)}. An unknown width makes the
     * kernel answer EINVAL, so it is empty here. An unknown speed is empty too (the kernel would print SDR):
     * XDR and later only fit {@code active_speed_ex}, which {@code ibv_query_port@@IBVERBS_1.1} does not fill,
     * and the caller then takes the kernel's own string from sysfs.
     */
    static Optional<String> rate(int activeWidth, int activeSpeed) {
        int lanes = switch (activeWidth) {
            case 1 -> 1;
            case 16 -> 2;
            case 2 -> 4;
            case 4 -> 8;
            case 8 -> 12;
            default -> -1;
        };
        String name;
        int deciGbPerLane;
        switch (activeSpeed) {
            case 1 -> { name = "SDR"; deciGbPerLane = 25; }
            case 2 -> { name = "DDR"; deciGbPerLane = 50; }
            case 4 -> { name = "QDR"; deciGbPerLane = 100; }
            case 8 -> { name = "FDR10"; deciGbPerLane = 100; }
            case 16 -> { name = "FDR"; deciGbPerLane = 140; }
            case 32 -> { name = "EDR"; deciGbPerLane = 250; }
            case 64 -> { name = "HDR"; deciGbPerLane = 500; }
            case 128 -> { name = "NDR"; deciGbPerLane = 1000; }
            default -> { return Optional.empty(); }
        }
        if (lanes < 0) {
            return Optional.empty();
        }
        int rate = deciGbPerLane * lanes;
        return Optional.of(rate / 10 + (rate % 10 != 0 ? ".5" : "") + " Gb/sec (" + lanes + "X " + name + ")");
    }

    /**
     * {@code enum ibv_link_layer}. UNSPECIFIED is what kernels before RoCE reported for InfiniBand ports;
     * rdma-core's {@code ibv_devinfo} prints it as InfiniBand too.
     */
    static LinkLayer linkLayer(int code) {
        return switch (code) {
            case IbvPort.LINK_LAYER_UNSPECIFIED, IbvPort.LINK_LAYER_INFINIBAND -> LinkLayer.INFINIBAND;
            case IbvPort.LINK_LAYER_ETHERNET -> LinkLayer.ETHERNET;
            default -> LinkLayer.UNKNOWN;
        };
    }

    /**
     * {@code enum ibv_gid_type}; without it ({@code ibv_query_gid} only) an InfiniBand port's GIDs are IB and a
     * RoCE port's are unknown, as in the sysfs backend without {@code gid_attrs/types}.
     */
    static Gid.Type gidType(Optional<Integer> code, LinkLayer layer) {
        if (code.isEmpty()) {
            return layer == LinkLayer.INFINIBAND ? Gid.Type.IB : Gid.Type.UNKNOWN;
        }
        return switch (code.get()) {
            case IbvGid.TYPE_IB -> Gid.Type.IB;
            case IbvGid.TYPE_ROCE_V1 -> Gid.Type.ROCE_V1;
            case IbvGid.TYPE_ROCE_V2 -> Gid.Type.ROCE_V2;
            default -> Gid.Type.UNKNOWN;
        };
    }
}
