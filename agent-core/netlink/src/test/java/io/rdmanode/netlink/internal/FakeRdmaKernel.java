// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.NetworkNamespaces;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.Callable;

/**
 * A fake RDMA-netlink peer that decodes the client's bytes and answers as the kernel's nldev.c does:
 * namespaces are names, a thread's namespace is a thread-local, fds map to names. Exclusive mode hides a
 * device from other namespaces; {@code failMoveWith} makes SET fail the way a driver without
 * disassociate_ucontext (EOPNOTSUPP) or an unprivileged caller (EPERM) does.
 */
final class FakeRdmaKernel implements NetlinkChannel.Factory, NetnsFiles, NetworkNamespaces {

    static final String HOST = "host";
    final Map<String, String> deviceNetns = new HashMap<>(); // device -> namespace
    final Map<String, Integer> index = new HashMap<>();
    int mode = 1;
    int failMoveWith;
    final List<Integer> openFds = new ArrayList<>();
    private final Map<Integer, String> fds = new HashMap<>();
    private int nextFd = 100;
    private final ThreadLocal<String> current = ThreadLocal.withInitial(() -> HOST);

    void device(String name, int idx) {
        deviceNetns.put(name, HOST);
        index.put(name, idx);
    }

    @Override
    public synchronized int open(Path netns) {
        String name = netns.toString().equals("/proc/thread-self/ns/net") ? current.get()
                : netns.getFileName().toString();
        if (name.equals("gone")) {
            throw new NetlinkException("open(" + netns + "): No such file", NetlinkException.ENOENT);
        }
        fds.put(nextFd, name);
        openFds.add(nextFd);
        return nextFd++;
    }

    @Override
    public synchronized void close(int fd) {
        fds.remove(fd);
        openFds.remove((Integer) fd);
    }

    /** The fake has no sysfs of its own per namespace: the same as {@link #callIn}. */
    @Override
    public <T> T callInWithSysfs(Path netns, Callable<T> work) throws Exception {
        return callIn(netns, work);
    }

    @Override
    public <T> T callIn(Path netns, Callable<T> work) throws Exception {
        int fd = open(netns);
        String before = current.get();
        current.set(fds.get(fd));
        try {
            return work.call();
        } finally {
            current.set(before);
            close(fd);
        }
    }

    @Override
    public boolean exists(Path netns) {
        return !netns.getFileName().toString().equals("gone");
    }

    @Override
    public NetlinkChannel openRdma() {
        String ns = current.get();
        Queue<byte[]> out = new ArrayDeque<>();
        return new NetlinkChannel() {
            @Override
            public void send(byte[] message) {
                RdmaNl.Message req = RdmaNl.parse(message, message.length).get(0);
                out.addAll(answer(ns, req));
            }

            @Override
            public int receive(byte[] buf) {
                byte[] m = out.poll();
                if (m == null) {
                    return 0;
                }
                System.arraycopy(m, 0, buf, 0, m.length);
                return m.length;
            }

            @Override
            public void close() {
            }
        };
    }

    private synchronized List<byte[]> answer(String ns, RdmaNl.Message req) {
        List<byte[]> r = new ArrayList<>();
        int s = req.seq();
        switch (RdmaNl.op(req.type())) {
            case RdmaNl.CMD_GET -> {
                deviceNetns.forEach((dev, where) -> {
                    if (mode == 1 || where.equals(ns)) {
                        r.add(new RdmaNl.Builder(req.type(), RdmaNl.NLM_F_MULTI, s)
                                .u32(RdmaNl.ATTR_DEV_INDEX, index.get(dev)).string(RdmaNl.ATTR_DEV_NAME, dev)
                                .u32(RdmaNl.ATTR_PORT_INDEX, 1).string(RdmaNl.ATTR_DEV_PROTOCOL, "roce").build());
                    }
                });
                r.add(new RdmaNl.Builder(RdmaNl.NLMSG_DONE, RdmaNl.NLM_F_MULTI, s).build());
            }
            case RdmaNl.CMD_SYS_GET -> {
                r.add(new RdmaNl.Builder(req.type(), 0, s).u8(RdmaNl.SYS_ATTR_NETNS_MODE, mode).build());
                r.add(ack(req, 0));
            }
            case RdmaNl.CMD_SYS_SET -> {
                boolean others = fds.values().stream().anyMatch(n -> !n.equals(HOST));
                int want = req.u8(RdmaNl.SYS_ATTR_NETNS_MODE, -1);
                if (want != mode && others) {
                    r.add(ack(req, NetlinkException.EBUSY));
                } else {
                    mode = want;
                    r.add(ack(req, 0));
                }
            }
            case RdmaNl.CMD_SET -> {
                int idx = req.u32(RdmaNl.ATTR_DEV_INDEX, -1);
                String target = fds.get(req.u32(RdmaNl.NET_NS_FD, -1));
                String dev = index.entrySet().stream().filter(e -> e.getValue() == idx).map(Map.Entry::getKey)
                        .findFirst().orElse(null);
                if (target == null) {
                    r.add(ack(req, NetlinkException.EBADF));
                } else if (dev == null || (mode == 0 && !deviceNetns.get(dev).equals(ns))) {
                    r.add(ack(req, NetlinkException.ENODEV));
                } else if (failMoveWith != 0) {
                    r.add(ack(req, failMoveWith));
                } else if (mode == 1) {
                    r.add(ack(req, NetlinkException.EOPNOTSUPP));
                } else {
                    deviceNetns.put(dev, target);
                    r.add(ack(req, 0));
                }
            }
            default -> r.add(ack(req, NetlinkException.EOPNOTSUPP));
        }
        return r;
    }

    private static byte[] ack(RdmaNl.Message req, int errno) {
        return new RdmaNl.Builder(RdmaNl.NLMSG_ERROR, 0, req.seq()).error(errno, req.type(), req.seq()).build();
    }
}
