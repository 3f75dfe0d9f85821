// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Generates the scale host: {@code hcas} ConnectX-6 InfiniBand HCAs with {@code ports} ports each, in
 * the kernel's layout (real directories under {@code sys/devices}, class and bus entries as relative
 * symlinks), with the PMA counters and mlx5 hw_counters of discovery's recorded hosts, all non-zero.
 */
public final class ScaleHost {

    static final List<String> PMA = List.of("VL15_dropped", "excessive_buffer_overrun_errors", "link_downed",
            "link_error_recovery", "local_link_integrity_errors", "port_rcv_constraint_errors", "port_rcv_data",
            "port_rcv_errors", "port_rcv_packets", "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
            "port_xmit_constraint_errors", "port_xmit_data", "port_xmit_discards", "port_xmit_packets",
            "port_xmit_wait", "symbol_error", "unicast_rcv_packets", "unicast_xmit_packets");
    static final List<String> HW = List.of("duplicate_request", "implied_nak_seq_err", "lifespan",
            "local_ack_timeout_err", "np_cnp_sent", "np_ecn_marked_roce_packets", "out_of_buffer", "out_of_sequence",
            "packet_seq_err", "req_cqe_error", "resp_cqe_error", "rnr_nak_retry_err", "roce_adp_retrans",
            "rp_cnp_handled", "rp_cnp_ignored", "rx_atomic_requests", "rx_read_requests", "rx_write_requests");

    private ScaleHost() {
    }

    public static RecordedHost generate(Path dir, int hcas, int ports) {
        try {
            Path sys = dir.resolve("sys");
            Files.createDirectories(sys.resolve("class/infiniband"));
            Files.createDirectories(sys.resolve("bus/pci/devices"));
            Files.createDirectories(sys.resolve("class/net"));
            Files.createDirectories(dir.resolve("dev/infiniband"));
            for (int h = 0; h < hcas; h++) {
                hca(sys, h, ports);
            }
            return RecordedHost.of("scale-" + hcas + "x" + ports, dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The big SR-IOV host: {@code pfs} ConnectX-5 RoCE PFs with {@code vfs} VFs each, every function
     * an mlx5 RDMA device with one Ethernet port and a netdev ({@code ens<P>f0}, {@code ens<P>f0v<V>}), the
     * counters as in {@link #generate} (8 x 128: 1032 RDMA devices, as discovery's ScaleHostBenchmark host).
     */
    public static RecordedHost sriov(Path dir, int pfs, int vfs) {
        try {
            Path sys = dir.resolve("sys");
            Files.createDirectories(sys.resolve("class/infiniband"));
            Files.createDirectories(sys.resolve("bus/pci/devices"));
            Files.createDirectories(sys.resolve("class/net"));
            Files.createDirectories(dir.resolve("dev/infiniband"));
            int n = 0;
            for (int p = 0; p < pfs; p++) {
                for (int f = 0; f <= vfs; f++) {
                    String root = String.format("pci0000:%02x", 0x10 + 0x10 * p);
                    int bus = 0x11 + 0x10 * p + (f == 0 ? 0 : 1 + f / 256);
                    String bdf = String.format("0000:%02x:%02x.%d", bus, (f % 256) / 8, f % 8);
                    String netdev = f == 0 ? "ens" + p + "f0" : "ens" + p + "f0v" + (f - 1);
                    roce(sys, root, bdf, n++, f == 0 ? "0x1017" : "0x1018", netdev, p % 2);
                }
            }
            return RecordedHost.of("sriov-" + pfs + "x" + vfs, dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void roce(Path sys, String root, String bdf, int h, String deviceId, String netdev, int numa)
            throws IOException {
        Path fn = sys.resolve("devices/" + root + "/" + bdf);
        write(fn.resolve("vendor"), "0x15b3");
        write(fn.resolve("device"), deviceId);
        write(fn.resolve("class"), "0x020000");
        write(fn.resolve("numa_node"), Integer.toString(numa));
        Files.createSymbolicLink(sys.resolve("bus/pci/devices/" + bdf), Path.of("../../../devices/" + root + "/" + bdf));
        String mac = String.format("b8:59:9f:%02x:%02x:%02x", h >> 16, (h >> 8) & 0xff, h & 0xff);
        Path net = fn.resolve("net/" + netdev);
        write(net.resolve("address"), mac);
        write(net.resolve("ifindex"), Integer.toString(h + 2));
        write(net.resolve("operstate"), "up");
        write(net.resolve("type"), "1");
        Files.createSymbolicLink(net.resolve("device"), Path.of("../.."));
        Files.createSymbolicLink(sys.resolve("class/net/" + netdev),
                Path.of("../../devices/" + root + "/" + bdf + "/net/" + netdev));
        String name = "mlx5_" + h;
        Path dev = fn.resolve("infiniband/" + name);
        String guid = String.format("ba59:9fff:fe%02x:%04x", h >> 16, h & 0xffff);
        write(dev.resolve("node_type"), "1: CA");
        write(dev.resolve("node_guid"), guid);
        write(dev.resolve("sys_image_guid"), guid);
        write(dev.resolve("fw_ver"), "16.35.2000");
        write(dev.resolve("board_id"), "MT_0000000008");
        write(dev.resolve("hca_type"), deviceId.equals("0x1017") ? "MT4119" : "MT4120");
        Files.createSymbolicLink(dev.resolve("device"), Path.of("../../../" + bdf));
        Files.createSymbolicLink(sys.resolve("class/infiniband/" + name),
                Path.of("../../devices/" + root + "/" + bdf + "/infiniband/" + name));
        Path port = dev.resolve("ports/1");
        write(port.resolve("state"), "4: ACTIVE");
        write(port.resolve("phys_state"), "5: LinkUp");
        write(port.resolve("rate"), "100 Gb/sec (4X EDR)");
        write(port.resolve("link_layer"), "Ethernet");
        write(port.resolve("lid"), "0x0");
        write(port.resolve("gids/0"), "fe80:0000:0000:0000:" + guid);
        write(port.resolve("gid_attrs/types/0"), "IB/RoCE v1");
        write(port.resolve("gid_attrs/ndevs/0"), netdev);
        for (int i = 0; i < PMA.size(); i++) {
            write(port.resolve("counters/" + PMA.get(i)), Long.toString(1_000_000L * (h + 1) + i));
        }
        for (int i = 0; i < HW.size(); i++) {
            write(port.resolve("hw_counters/" + HW.get(i)), HW.get(i).equals("lifespan") ? "10"
                    : Long.toString(1000L * (h + 1) + i));
        }
    }

    private static void hca(Path sys, int h, int ports) throws IOException {
        String root = String.format("pci0000:%02x", 0x10 + h * 8);
        String bdf = String.format("0000:%02x:00.0", 0x11 + h * 8);
        Path fn = sys.resolve("devices/" + root + "/" + bdf);
        write(fn.resolve("vendor"), "0x15b3");
        write(fn.resolve("device"), "0x101b");
        write(fn.resolve("class"), "0x020700");
        write(fn.resolve("numa_node"), Integer.toString(h % 2));
        Files.createSymbolicLink(sys.resolve("bus/pci/devices/" + bdf), Path.of("../../../devices/" + root + "/" + bdf));
        String name = "mlx5_" + h;
        Path dev = fn.resolve("infiniband/" + name);
        String guid = String.format("0c42:a103:00%02x:1f2e", h);
        write(dev.resolve("node_type"), "1: CA");
        write(dev.resolve("node_guid"), guid);
        write(dev.resolve("sys_image_guid"), guid);
        write(dev.resolve("fw_ver"), "20.38.1002");
        write(dev.resolve("board_id"), "MT_0000000223");
        write(dev.resolve("hca_type"), "MT4123");
        Files.createSymbolicLink(dev.resolve("device"), Path.of("../../../" + bdf));
        Files.createSymbolicLink(sys.resolve("class/infiniband/" + name),
                Path.of("../../devices/" + root + "/" + bdf + "/infiniband/" + name));
        for (int p = 1; p <= ports; p++) {
            port(dev.resolve("ports/" + p), guid, h, p);
        }
    }

    private static void port(Path port, String guid, int h, int p) throws IOException {
        write(port.resolve("state"), "4: ACTIVE");
        write(port.resolve("phys_state"), "5: LinkUp");
        write(port.resolve("rate"), "200 Gb/sec (4X HDR)");
        write(port.resolve("link_layer"), "InfiniBand");
        write(port.resolve("lid"), String.format("0x%x", 0x100 + h * 4 + p));
        write(port.resolve("sm_lid"), "0x1");
        write(port.resolve("gids/0"), "fe80:0000:0000:0000:" + guid);
        write(port.resolve("gid_attrs/types/0"), "IB/RoCE v1");
        for (int i = 0; i < PMA.size(); i++) {
            write(port.resolve("counters/" + PMA.get(i)), Long.toString(1_000_000L * (h + 1) + 1000L * p + i));
        }
        for (int i = 0; i < HW.size(); i++) {
            write(port.resolve("hw_counters/" + HW.get(i)), HW.get(i).equals("lifespan") ? "10"
                    : Long.toString(1000L * (h + 1) + 100L * p + i));
        }
    }

    private static void write(Path file, String value) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, value + "\n");
    }
}
