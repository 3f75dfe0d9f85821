// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.RdmaLink;
import io.rdmanode.netlink.RdmaNetlink;
import io.rdmanode.netlink.RdmaNetnsMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * RDMA netlink as the kernel behaves, for what this machine cannot have (no RDMA NIC, and Soft-RoCE devices
 * cannot move): devices live in real network namespaces, identified by the namespace file's inode; a device
 * whose namespace was deleted is back in the host, as the kernel does on netns teardown. Counts moves so tests
 * can prove nothing moved twice.
 */
final class FakeRdmaKernel implements RdmaNetlink {

    private final Map<String, Path> where = new HashMap<>(); // device -> pod netns path; absent = host
    private final Map<String, Object> inode = new HashMap<>();
    RdmaNetnsMode mode = RdmaNetnsMode.EXCLUSIVE;
    int failMoveWith;
    int moves;
    int returns;

    final List<String> all = new ArrayList<>();

    FakeRdmaKernel(String... devices) {
        all.addAll(List.of(devices));
    }

    synchronized Path location(String device) {
        Path p = where.get(device);
        if (p != null && !inode.get(device).equals(ino(p))) {
            where.remove(device); // namespace destroyed: the kernel returned the device to init_net
            return null;
        }
        return p;
    }

    boolean inHost(String device) {
        return location(device) == null;
    }

    private static Object ino(Path p) {
        try {
            return Files.getAttribute(p, "unix:ino");
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
        Object i = ino(netns);
        return all.stream().filter(d -> location(d) != null && inode.get(d).equals(i))
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
        if (!all.contains(device) || !inHost(device)) {
            throw new NetlinkException("RDMA device " + device + " is not in this network namespace",
                    NetlinkException.ENODEV);
        }
        if (failMoveWith != 0 || mode != RdmaNetnsMode.EXCLUSIVE) {
            int e = failMoveWith != 0 ? failMoveWith : NetlinkException.EOPNOTSUPP;
            throw new NetlinkException("RDMA netlink SET " + device + ": " + NetlinkException.errnoName(e), e);
        }
        where.put(device, netns);
        inode.put(device, ino(netns));
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
        where.remove(device);
        returns++;
    }
}
