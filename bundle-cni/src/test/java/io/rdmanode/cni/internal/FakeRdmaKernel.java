// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.RdmaLink;
import io.rdmanode.netlink.RdmaNetlink;
import io.rdmanode.netlink.RdmaNetnsMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * RDMA netlink as the kernel behaves, for what this machine cannot have (no RDMA NIC, and Soft-RoCE devices
 * cannot move): devices live in real network namespaces, identified by the namespace file's inode; a device
 * whose namespace was deleted is back in the host, as the kernel does on netns teardown. Counts moves so tests
 * can prove nothing moved twice.
 *
 * <p>In memory by default. {@link #persistent} keeps each device's whereabouts in a file of its own under a
 * directory, written as a temp file renamed over the old one, so the fake "kernel" outlives an agent process
 * that is SIGKILLed (scripts/bench-cni-crash): a move or return either happened or did not, as in the real
 * kernel. The file also counts the device's moves, returns and refused double moves (a move of a device that
 * is already in the target namespace) for the checker in another process.
 */
final class FakeRdmaKernel implements RdmaNetlink {

    /** One device's record: where it is (null netns = host), and its counters. */
    record Placement(String netns, String inode, int moves, int returns, int doubleMoves) {

        static final Placement HOST = new Placement(null, null, 0, 0, 0);

        Placement at(String ns, String ino) {
            return new Placement(ns, ino, ns == null ? moves : moves + 1, ns == null ? returns + 1 : returns,
                    doubleMoves);
        }

        String line() {
            return (netns == null ? "-" : netns) + " " + (inode == null ? "-" : inode) + " " + moves + " " + returns
                    + " " + doubleMoves + "\n";
        }

        static Placement parse(String line) {
            String[] f = line.trim().split(" ");
            return new Placement(f[0].equals("-") ? null : f[0], f[1].equals("-") ? null : f[1],
                    Integer.parseInt(f[2]), Integer.parseInt(f[3]), Integer.parseInt(f[4]));
        }
    }

    private final Path dir; // null = in memory
    private final Map<String, Placement> memory = new HashMap<>();
    RdmaNetnsMode mode = RdmaNetnsMode.EXCLUSIVE;
    int failMoveWith;
    int moves;
    int returns;

    final List<String> all = new ArrayList<>();

    FakeRdmaKernel(String... devices) {
        this(null, devices);
    }

    private FakeRdmaKernel(Path dir, String... devices) {
        this.dir = dir;
        all.addAll(List.of(devices));
    }

    /** A kernel whose device placements live in {@code dir} (created; existing records are kept). */
    static FakeRdmaKernel persistent(Path dir, String... devices) throws IOException {
        Files.createDirectories(dir);
        return new FakeRdmaKernel(dir, devices);
    }

    /** The record of {@code device} as stored (a namespace since deleted still shows; see {@link #location}). */
    synchronized Placement placement(String device) {
        if (dir == null) {
            return memory.getOrDefault(device, Placement.HOST);
        }
        Path f = dir.resolve(device);
        try {
            return Files.exists(f) ? Placement.parse(Files.readString(f, StandardCharsets.UTF_8)) : Placement.HOST;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void store(String device, Placement p) {
        if (dir == null) {
            memory.put(device, p);
            return;
        }
        try {
            Path tmp = dir.resolve("." + device + ".tmp");
            Files.writeString(tmp, p.line(), StandardCharsets.UTF_8);
            Files.move(tmp, dir.resolve(device), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    synchronized Path location(String device) {
        Placement p = placement(device);
        if (p.netns() != null && !p.inode().equals(ino(Path.of(p.netns())))) {
            store(device, p.at(null, null)); // namespace destroyed: the kernel returned the device to init_net
            return null;
        }
        return p.netns() == null ? null : Path.of(p.netns());
    }

    boolean inHost(String device) {
        return location(device) == null;
    }

    static String ino(Path p) {
        try {
            return String.valueOf(Files.getAttribute(p, "unix:ino"));
        } catch (IOException | UnsupportedOperationException e) {
            return "gone";
        }
    }

    @Override
    public synchronized List<RdmaLink> links() {
        return all.stream().filter(this::inHost).map(d -> new RdmaLink(all.indexOf(d) + 1, d, 1, 0, "roce")).toList();
    }

    @Override
    public synchronized List<RdmaLink> linksIn(Path netns) {
        String i = ino(netns);
        return all.stream().filter(d -> location(d) != null && placement(d).inode().equals(i))
                .map(d -> new RdmaLink(all.indexOf(d) + 1, d, 1, 0, "roce")).toList();
    }

    @Override
    public synchronized RdmaNetnsMode netnsMode() {
        return mode;
    }

    @Override
    public synchronized void setNetnsMode(RdmaNetnsMode m) {
        mode = m;
    }

    @Override
    public synchronized void moveToNetns(String device, Path netns) {
        if (!Files.exists(netns)) {
            throw new NetlinkException("open(" + netns + "): No such file or directory", NetlinkException.ENOENT);
        }
        if (all.contains(device) && !inHost(device)) {
            Placement p = placement(device);
            if (p.inode().equals(ino(netns))) {
                // The kernel looks the device up in the caller's namespace: one already moved is not found there.
                store(device, new Placement(p.netns(), p.inode(), p.moves(), p.returns(), p.doubleMoves() + 1));
            }
        }
        if (!all.contains(device) || !inHost(device)) {
            throw new NetlinkException("RDMA device " + device + " is not in this network namespace",
                    NetlinkException.ENODEV);
        }
        if (failMoveWith != 0 || mode != RdmaNetnsMode.EXCLUSIVE) {
            int e = failMoveWith != 0 ? failMoveWith : NetlinkException.EOPNOTSUPP;
            throw new NetlinkException("RDMA netlink SET " + device + ": " + NetlinkException.errnoName(e), e);
        }
        store(device, placement(device).at(netns.toString(), ino(netns)));
        moves++;
    }

    @Override
    public synchronized void returnFromNetns(String device, Path podNetns) {
        if (!Files.exists(podNetns)) {
            throw new NetlinkException("open(" + podNetns + "): No such file or directory", NetlinkException.ENOENT);
        }
        if (linksIn(podNetns).stream().noneMatch(l -> l.name().equals(device))) {
            throw new NetlinkException("RDMA device " + device + " is not in this network namespace",
                    NetlinkException.ENODEV);
        }
        store(device, placement(device).at(null, null));
        returns++;
    }
}
