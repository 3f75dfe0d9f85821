// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.discovery.internal.sysfs.HostTreeBuilder.GidSpec;
import io.rdmanode.discovery.internal.sysfs.HostTreeBuilder.PortSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The synthesized hosts behind the {@code .ttar} fixtures (see each {@code .PROVENANCE.md}) and the generated
 * scale host. Values follow the kernel ABI documents, the mlx5 sysfs layout and the testbed's rxe reference.
 */
public final class FixtureHosts {

    static final List<String> PMA_COUNTERS = List.of("excessive_buffer_overrun_errors", "link_downed",
            "link_error_recovery", "local_link_integrity_errors", "port_rcv_constraint_errors", "port_rcv_data",
            "port_rcv_errors", "port_rcv_packets", "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
            "port_xmit_constraint_errors", "port_xmit_data", "port_xmit_discards", "port_xmit_packets",
            "port_xmit_wait", "symbol_error", "unicast_rcv_packets", "unicast_xmit_packets", "VL15_dropped");
    static final List<String> MLX5_HW_COUNTERS = List.of("duplicate_request", "implied_nak_seq_err", "lifespan",
            "local_ack_timeout_err", "np_cnp_sent", "np_ecn_marked_roce_packets", "out_of_buffer", "out_of_sequence",
            "packet_seq_err", "req_cqe_error", "resp_cqe_error", "rnr_nak_retry_err", "roce_adp_retrans",
            "rp_cnp_handled", "rp_cnp_ignored", "rx_atomic_requests", "rx_read_requests", "rx_write_requests");
    static final List<String> RXE_HW_COUNTERS = List.of("ack_deferred", "completer_retry_err", "duplicate_request",
            "lifespan", "link_downed", "out_of_seq_request", "rcvd_pkts", "rcvd_rnr_err", "rcvd_seq_err", "rdma_recvs",
            "rdma_sends", "retry_exceeded_err", "retry_rnr_exceeded_err", "send_err", "send_rnr_err", "sent_pkts");

    private static final String BRIDGE0 = "pci0000:3a/0000:3a:00.0";
    private static final String BRIDGE1 = "pci0000:85/0000:85:00.0";

    private FixtureHosts() {
    }

    /** ConnectX-5 Socket Direct (dual port, one PCIe x8 per socket): PF0 on NUMA 0, PF1 on NUMA 1, 8 VFs each. */
    static void cx5RoceSriov(Path root) {
        HostTreeBuilder b = new HostTreeBuilder(root);
        b.netdev(null, "lo", 1, "00:00:00:00:00:00", "unknown", 772);
        int[] next = {0, 4};                                    // {rdma index, ifindex}
        cx5Pf(b, BRIDGE0, "0000:3b", 0, 0, "ens1f0", next);
        cx5Pf(b, BRIDGE1, "0000:86", 1, 1, "ens2f0", next);
        b.rdmaCm(124);
    }

    private static void cx5Pf(HostTreeBuilder b, String bridge, String bus, int pfNo, int numa, String ifname,
                              int[] next) {
        Path pf = b.pciFunction(bridge, bus + ":00.0", "0x15b3", "0x1017", "0x15b3", "0x0007", "0x020000",
                "mlx5_core", numa, 40 + pfNo * 20);
        String mac = String.format("b8:59:9f:a0:%02x:00", pfNo);
        roceFunction(b, pf, "mlx5_" + next[0]++, ifname, next[1]++, mac, "16.35.2000", pfNo * 20, "up");
        List<Path> vfs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String bdf = String.format("%s:%02x.%d", bus, (i + 2) / 8, (i + 2) % 8);
            Path vf = b.pciFunction(bridge, bdf, "0x15b3", "0x1018", "0x15b3", "0x0007", "0x020000", "mlx5_core",
                    numa, 41 + pfNo * 20 + i);
            vfs.add(vf);
            roceFunction(b, vf, "mlx5_" + next[0]++, ifname + "v" + i, next[1]++,
                    String.format("b8:59:9f:a0:%02x:%02x", pfNo, i + 1), "16.35.2000", pfNo * 20 + i + 1,
                    i == 7 ? "down" : "up");
        }
        b.sriov(pf, 8, vfs);
    }

    /** One PCI function with a RoCE RDMA device (1 port), its netdev and its uverbs/umad/issm nodes. */
    static void roceFunction(HostTreeBuilder b, Path fn, String ibdev, String ifname, int ifindex, String mac,
                             String fw, int charIndex, String operstate) {
        String eui = eui64(mac);
        String guid = eui.replace(":", "").replaceAll("(.{4})(?!$)", "$1:");
        boolean up = operstate.equals("up");
        List<GidSpec> gids = List.of(
                new GidSpec(0, "fe80:0000:0000:0000:" + guid, "IB/RoCE v1", ifname),
                new GidSpec(1, "fe80:0000:0000:0000:" + guid, "RoCE v2", ifname),
                new GidSpec(2, "0000:0000:0000:0000:0000:0000:0000:0000", null, null),
                new GidSpec(3, "0000:0000:0000:0000:0000:0000:0000:0000", null, null));
        PortSpec port = new PortSpec(1, up ? "4: ACTIVE" : "1: DOWN", up ? "5: LinkUp" : "3: Disabled", "Ethernet",
                up ? "100 Gb/sec (4X EDR)" : "40 Gb/sec (4X QDR)", "0x0", gids, PMA_COUNTERS, MLX5_HW_COUNTERS);
        b.rdmaDevice(fn, ibdev, "1: CA", guid, fw, null, List.of(port), List.of());
        b.netdev(fn, ifname, ifindex, mac, operstate, 1);
        b.charDevice(fn, "infiniband_verbs", "uverbs" + charIndex, ibdev, 0, 231, 192 + charIndex);
        b.charDevice(fn, "infiniband_mad", "umad" + charIndex, ibdev, 1, 231, charIndex);
        b.charDevice(fn, "infiniband_mad", "issm" + charIndex, ibdev, 1, 231, 64 + charIndex);
    }

    /** ConnectX-6 HDR InfiniBand HCA, one port, subnet-managed (LID 0x1a), IPoIB netdev ib0, NUMA 1. */
    static void cx6Ib(Path root) {
        HostTreeBuilder b = new HostTreeBuilder(root);
        b.netdev(null, "lo", 1, "00:00:00:00:00:00", "unknown", 772);
        Path fn = b.pciFunction("pci0000:c0/0000:c0:01.1", "0000:c1:00.0", "0x15b3", "0x101b", "0x15b3", "0x0006",
                "0x020700", "mlx5_core", 1, 70);
        String guid = "0c42:a103:0065:1f2e";
        PortSpec port = new PortSpec(1, "4: ACTIVE", "5: LinkUp", "InfiniBand", "200 Gb/sec (4X HDR)", "0x1a",
                List.of(new GidSpec(0, "fe80:0000:0000:0000:" + guid, "IB/RoCE v1", null)), PMA_COUNTERS,
                List.of("duplicate_request", "lifespan", "out_of_buffer", "out_of_sequence", "rnr_nak_retry_err"));
        b.rdmaDevice(fn, "mlx5_0", "1: CA", guid, "20.38.1002", null, List.of(port), List.of());
        b.netdev(fn, "ib0", 4, "00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:65:1f:2e", "up", 32);
        b.charDevice(fn, "infiniband_verbs", "uverbs0", "mlx5_0", 0, 231, 192);
        b.charDevice(fn, "infiniband_mad", "umad0", "mlx5_0", 1, 231, 0);
        b.charDevice(fn, "infiniband_mad", "issm0", "mlx5_0", 1, 231, 64);
        b.rdmaCm(124);
    }

    /** Two Soft-RoCE devices on a veth pair, as in ../shared/testbed/sysfs-rxe-reference.txt. */
    static void rxe(Path root) {
        HostTreeBuilder b = new HostTreeBuilder(root);
        b.netdev(null, "lo", 1, "00:00:00:00:00:00", "unknown", 772);
        rxeDevice(b, "rxe0", "tb0", 3, "c2:43:e3:c8:a6:d0", "c043:e3ff:fec8:a6d0", "0000:0000:0000:0000:0000:ffff:a9fe:4d01", 0);
        rxeDevice(b, "rxe1", "tb1", 2, "0e:7a:16:19:36:89", "0c7a:16ff:fe19:3689", null, 1);
        b.rdmaCm(124);
    }

    private static void rxeDevice(HostTreeBuilder b, String name, String ndev, int ifindex, String mac, String guid,
                                  String ipv4Gid, int n) {
        List<GidSpec> gids = new ArrayList<>();
        gids.add(new GidSpec(0, "fe80:0000:0000:0000:" + guid, "RoCE v2", ndev));
        gids.add(ipv4Gid == null ? new GidSpec(1, "0000:0000:0000:0000:0000:0000:0000:0000", null, null)
                : new GidSpec(1, ipv4Gid, "RoCE v2", ndev));
        PortSpec port = new PortSpec(1, "4: ACTIVE", "5: LinkUp", "Ethernet", "10 Gb/sec (1X FDR10)", "0x0", gids,
                List.of(), RXE_HW_COUNTERS);
        b.rdmaDevice(null, name, "1: CA", guid, "", ndev, List.of(port), List.of());
        b.netdev(null, ndev, ifindex, mac, "up", 1);
        b.charDevice(null, "infiniband_verbs", "uverbs" + n, name, 0, 231, 192 + n);
        b.charDevice(null, "infiniband_mad", "umad" + n, name, 1, 231, n);
        b.charDevice(null, "infiniband_mad", "issm" + n, name, 1, 231, 64 + n);
    }

    /**
     * A ConnectX-7 dual-port RoCE NIC in LAG mode: mlx5_core registers one RDMA device, {@code mlx5_bond_0}, on
     * PF0 once both PFs are enslaved to {@code bond0} (802.3ad); its GIDs name {@code bond0}, PF1 has no RDMA
     * device of its own. NUMA 0, firmware 28.39.1002.
     */
    static void cx7RoceBond(Path root) {
        HostTreeBuilder b = new HostTreeBuilder(root);
        b.netdev(null, "lo", 1, "00:00:00:00:00:00", "unknown", 772);
        String bridge = "pci0000:16/0000:16:02.0";
        Path pf0 = b.pciFunction(bridge, "0000:17:00.0", "0x15b3", "0x1021", "0x15b3", "0x0041", "0x020000",
                "mlx5_core", 0, 31);
        Path pf1 = b.pciFunction(bridge, "0000:17:00.1", "0x15b3", "0x1021", "0x15b3", "0x0041", "0x020000",
                "mlx5_core", 0, 32);
        Path n0 = b.netdev(pf0, "ens1f0np0", 4, "a0:88:c2:31:5e:40", "up", 1);
        Path n1 = b.netdev(pf1, "ens1f1np1", 5, "a0:88:c2:31:5e:40", "up", 1);   // a bond member takes the bond's MAC
        b.bond("bond0", 6, "a0:88:c2:31:5e:40", "802.3ad 4", List.of(n0, n1));
        String guid = "a088:c203:0031:5e40";
        List<GidSpec> gids = List.of(
                new GidSpec(0, "fe80:0000:0000:0000:a288:c2ff:fe31:5e40", "IB/RoCE v1", "bond0"),
                new GidSpec(1, "fe80:0000:0000:0000:a288:c2ff:fe31:5e40", "RoCE v2", "bond0"),
                new GidSpec(2, "0000:0000:0000:0000:0000:ffff:0a00:0011", "IB/RoCE v1", "bond0"),
                new GidSpec(3, "0000:0000:0000:0000:0000:ffff:0a00:0011", "RoCE v2", "bond0"));
        PortSpec port = new PortSpec(1, "4: ACTIVE", "5: LinkUp", "Ethernet", "400 Gb/sec (4X NDR)", "0x0", gids,
                PMA_COUNTERS, MLX5_HW_COUNTERS);
        b.rdmaDevice(pf0, "mlx5_bond_0", "1: CA", guid, "28.39.1002", null, List.of(port), List.of());
        b.charDevice(pf0, "infiniband_verbs", "uverbs0", "mlx5_bond_0", 0, 231, 192);
        b.charDevice(pf0, "infiniband_mad", "umad0", "mlx5_bond_0", 1, 231, 0);
        b.charDevice(pf0, "infiniband_mad", "issm0", "mlx5_bond_0", 1, 231, 64);
        b.rdmaCm(124);
    }

    /**
     * Soft-RoCE on a PCI NIC: {@code rxe0} on {@code eth0}, an Intel X710 port (8086:1572, i40e) on NUMA 1. The
     * rxe device itself has no PCI function; its hardware facts come from its parent's.
     */
    static void rxeOnPciNic(Path root) {
        HostTreeBuilder b = new HostTreeBuilder(root);
        b.netdev(null, "lo", 1, "00:00:00:00:00:00", "unknown", 772);
        Path fn = b.pciFunction("pci0000:5d/0000:5d:00.0", "0000:5e:00.0", "0x8086", "0x1572", "0x8086", "0x0006",
                "0x020000", "i40e", 1, 52);
        b.netdev(fn, "eth0", 2, "3c:fd:fe:b2:71:a0", "up", 1);
        String guid = "3efd:feff:feb2:71a0";
        List<GidSpec> gids = List.of(new GidSpec(0, "fe80:0000:0000:0000:" + guid, "RoCE v2", "eth0"),
                new GidSpec(1, "0000:0000:0000:0000:0000:ffff:c0a8:0a05", "RoCE v2", "eth0"));
        PortSpec port = new PortSpec(1, "4: ACTIVE", "5: LinkUp", "Ethernet", "10 Gb/sec (1X QDR)", "0x0", gids,
                List.of(), RXE_HW_COUNTERS);
        b.rdmaDevice(null, "rxe0", "1: CA", guid, "", "eth0", List.of(port), List.of());
        b.charDevice(null, "infiniband_verbs", "uverbs0", "rxe0", 0, 231, 192);
        b.charDevice(null, "infiniband_mad", "umad0", "rxe0", 1, 231, 0);
        b.charDevice(null, "infiniband_mad", "issm0", "rxe0", 1, 231, 64);
        b.rdmaCm(124);
    }

    /** {@code pfs} ConnectX-5 PFs with {@code vfsPerPf} VFs each, every VF with its RDMA device and netdev. */
    public static void scale(Path root, int pfs, int vfsPerPf) {
        HostTreeBuilder b = new HostTreeBuilder(root);
        int rdma = 0;
        int ifindex = 2;
        for (int p = 0; p < pfs; p++) {
            String bridge = String.format("pci0000:%02x/0000:%02x:00.0", 0x10 + 0x10 * p, 0x10 + 0x10 * p);
            int bus = 0x11 + 0x10 * p;
            Path pf = b.pciFunction(bridge, String.format("0000:%02x:00.0", bus), "0x15b3", "0x1017", "0x15b3",
                    "0x0007", "0x020000", "mlx5_core", p % 2, 1000 * p);
            roceFunction(b, pf, "mlx5_" + rdma, "ens" + p + "f0", ifindex++, mac(p, 0), "16.35.2000", rdma++, "up");
            List<Path> vfs = new ArrayList<>();
            for (int v = 0; v < vfsPerPf; v++) {
                int slot = v + 1;
                String bdf = String.format("0000:%02x:%02x.%d", bus + 1 + slot / 256, (slot % 256) / 8, slot % 8);
                Path vf = b.pciFunction(bridge, bdf, "0x15b3", "0x1018", "0x15b3", "0x0007", "0x020000",
                        "mlx5_core", p % 2, 1000 * p + slot);
                vfs.add(vf);
                roceFunction(b, vf, "mlx5_" + rdma, "ens" + p + "f0v" + v, ifindex++, mac(p, slot), "16.35.2000",
                        rdma++, "up");
            }
            b.sriov(pf, vfsPerPf, vfs);
        }
        b.rdmaCm(124);
    }

    private static String mac(int pf, int fn) {
        return String.format("b8:59:9f:%02x:%02x:%02x", pf, fn >> 8, fn & 0xff);
    }

    /** Modified EUI-64 from a MAC, as the kernel builds RoCE link-local GIDs. */
    static String eui64(String mac) {
        String[] m = mac.split(":");
        int first = Integer.parseInt(m[0], 16) ^ 0x02;
        return String.format("%02x%s:%sff:fe%s:%s%s", first, m[1], m[2], m[3], m[4], m[5]);
    }
}
