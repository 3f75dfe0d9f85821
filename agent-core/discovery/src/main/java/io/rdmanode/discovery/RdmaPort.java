// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * One port of an RDMA device ({@code /sys/class/infiniband/<dev>/ports/<n>/}, {@code sysfs-class-infiniband}).
 *
 * @param number        1-based port number
 * @param rate          as the kernel prints it, e.g. {@code 100 Gb/sec (4X EDR)}
 * @param lid           InfiniBand LID; present but 0 on RoCE ports, empty when the file is missing
 * @param netdev        the netdev bound to the port (RoCE: GID 0's netdev), empty on InfiniBand
 * @param counterFiles  {@code counters/*} files (PMA counters), sorted; empty when the driver has none
 * @param hwCounterFiles {@code hw_counters/*} files (driver counters), sorted
 * @param umad          {@code /dev/infiniband/umadN} of this port, present or absent with the reason
 * @param issm          {@code /dev/infiniband/issmN} of this port
 * @since 1.0
 */
public record RdmaPort(int number, PortState state, PhysState physState, LinkLayer linkLayer,
                       Optional<String> rate, Optional<Integer> lid, List<Gid> gids, Optional<String> netdev,
                       List<Path> counterFiles, List<Path> hwCounterFiles, CharDevice umad, CharDevice issm) {

    public RdmaPort {
        gids = List.copyOf(gids);
        counterFiles = FileList.of(counterFiles);
        hwCounterFiles = FileList.of(hwCounterFiles);
    }

    /** {@code ports/N/state}: "4: ACTIVE". */
    public enum PortState {
        NOP, DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER, UNKNOWN;

        public static PortState ofCode(int code) {
            return code >= 0 && code <= 5 ? values()[code] : UNKNOWN;
        }
    }

    /** {@code ports/N/phys_state}: "5: LinkUp". */
    public enum PhysState {
        NOP, SLEEP, POLLING, DISABLED, PORT_CONFIGURATION_TRAINING, LINK_UP, LINK_ERROR_RECOVERY, PHY_TEST, UNKNOWN;

        public static PhysState ofCode(int code) {
            return code >= 0 && code <= 7 ? values()[code] : UNKNOWN;
        }
    }

    /** {@code ports/N/link_layer}. */
    public enum LinkLayer { INFINIBAND, ETHERNET, UNKNOWN }
}
