// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.NetworkNamespaces;
import io.rdmanode.netlink.RdmaLink;
import io.rdmanode.netlink.RdmaNetlink;
import io.rdmanode.netlink.RdmaNetnsMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link RdmaNetlink} over {@link NetlinkChannel}s: one channel per call, opened on the thread whose
 * namespace the call is about. Requests set NLM_F_ACK and wait for the ACK (or the error) with their
 * sequence number; dumps read until NLMSG_DONE.
 */
public final class RdmaNetlinkClient implements RdmaNetlink {

    public static final RdmaNetlinkClient NATIVE = new RdmaNetlinkClient(
            () -> NetlinkSocket.open(NetlinkSocket.NETLINK_RDMA, 0, 1000), NativeNetnsFiles.INSTANCE,
            NativeNamespaces.INSTANCE);

    private final NetlinkChannel.Factory channels;
    private final NetnsFiles files;
    private final NetworkNamespaces namespaces;
    private final AtomicInteger seq = new AtomicInteger(1);

    public RdmaNetlinkClient(NetlinkChannel.Factory channels, NetnsFiles files, NetworkNamespaces namespaces) {
        this.channels = channels;
        this.files = files;
        this.namespaces = namespaces;
    }

    @Override
    public List<RdmaLink> links() {
        try (NetlinkChannel ch = channels.openRdma()) {
            return dump(ch);
        }
    }

    @Override
    public List<RdmaLink> linksIn(Path netns) {
        return inNamespace(netns, this::links);
    }

    @Override
    public RdmaNetnsMode netnsMode() {
        try (NetlinkChannel ch = channels.openRdma()) {
            int s = seq.incrementAndGet();
            ch.send(new RdmaNl.Builder(RdmaNl.type(RdmaNl.CMD_SYS_GET), RdmaNl.NLM_F_REQUEST | RdmaNl.NLM_F_ACK, s)
                    .build());
            Integer mode = null;
            for (RdmaNl.Message m : replies(ch, s, "SYS_GET")) {
                if (m.attrs().containsKey(RdmaNl.SYS_ATTR_NETNS_MODE)) {
                    mode = m.u8(RdmaNl.SYS_ATTR_NETNS_MODE, 1);
                }
            }
            if (mode == null) {
                throw new NetlinkException("RDMA netlink SYS_GET: the reply has no NETNS_MODE attribute");
            }
            return RdmaNetnsMode.ofWire(mode);
        }
    }

    @Override
    public void setNetnsMode(RdmaNetnsMode mode) {
        try (NetlinkChannel ch = channels.openRdma()) {
            int s = seq.incrementAndGet();
            ch.send(new RdmaNl.Builder(RdmaNl.type(RdmaNl.CMD_SYS_SET), RdmaNl.NLM_F_REQUEST | RdmaNl.NLM_F_ACK, s)
                    .u8(RdmaNl.SYS_ATTR_NETNS_MODE, mode.wire()).build());
            replies(ch, s, "SYS_SET netns " + mode.name().toLowerCase());
        }
    }

    @Override
    public void moveToNetns(String device, Path netns) {
        int fd = files.open(netns);
        try {
            moveByFd(device, fd, netns.toString());
        } finally {
            files.close(fd);
        }
    }

    @Override
    public void returnFromNetns(String device, Path podNetns) {
        int host = files.openOwn();
        try {
            inNamespace(podNetns, () -> {
                moveByFd(device, host, "the agent's namespace");
                return null;
            });
        } finally {
            files.close(host);
        }
    }

    /** Looks {@code device} up from the calling thread's namespace and sends SET with NET_NS_FD. */
    private void moveByFd(String device, int fd, String target) {
        try (NetlinkChannel ch = channels.openRdma()) {
            RdmaLink link = dump(ch).stream().filter(l -> l.name().equals(device)).findFirst()
                    .orElseThrow(() -> new NetlinkException("RDMA device " + device + " is not in this network"
                            + " namespace", NetlinkException.ENODEV));
            int s = seq.incrementAndGet();
            ch.send(new RdmaNl.Builder(RdmaNl.type(RdmaNl.CMD_SET), RdmaNl.NLM_F_REQUEST | RdmaNl.NLM_F_ACK, s)
                    .u32(RdmaNl.ATTR_DEV_INDEX, link.index()).u32(RdmaNl.NET_NS_FD, fd).build());
            replies(ch, s, "SET " + device + " netns " + target);
        }
    }

    private List<RdmaLink> dump(NetlinkChannel ch) {
        int s = seq.incrementAndGet();
        ch.send(new RdmaNl.Builder(RdmaNl.type(RdmaNl.CMD_GET), RdmaNl.NLM_F_REQUEST | RdmaNl.NLM_F_DUMP, s).build());
        List<RdmaLink> out = new ArrayList<>();
        for (RdmaNl.Message m : replies(ch, s, "GET (dump)")) {
            if (m.type() == RdmaNl.type(RdmaNl.CMD_GET)) {
                out.add(new RdmaLink(m.u32(RdmaNl.ATTR_DEV_INDEX, -1), m.string(RdmaNl.ATTR_DEV_NAME, ""),
                        m.u32(RdmaNl.ATTR_PORT_INDEX, 0), m.u64(RdmaNl.ATTR_NODE_GUID, 0),
                        m.string(RdmaNl.ATTR_DEV_PROTOCOL, "")));
            }
        }
        return out;
    }

    /**
     * The data messages answering request {@code s}, until NLMSG_DONE or the ACK; a NLMSG_ERROR with a
     * non-zero errno becomes a NetlinkException naming {@code what}.
     */
    private static List<RdmaNl.Message> replies(NetlinkChannel ch, int s, String what) {
        List<RdmaNl.Message> out = new ArrayList<>();
        byte[] buf = new byte[32 * 1024];
        while (true) {
            int n = ch.receive(buf);
            if (n == 0) {
                throw new NetlinkException("RDMA netlink " + what + ": no answer within the timeout",
                        NetlinkException.ETIMEDOUT);
            }
            for (RdmaNl.Message m : RdmaNl.parse(buf, n)) {
                if (m.seq() != s) {
                    continue;
                }
                if (m.isError()) {
                    if (m.errno() != 0) {
                        throw new NetlinkException("RDMA netlink " + what + ": " + NetlinkException.errnoName(m.errno())
                                + explain(m.errno()), m.errno());
                    }
                    return out;
                }
                if (m.isDone()) {
                    return out;
                }
                out.add(m);
            }
        }
    }

    private static String explain(int errno) {
        return switch (errno) {
            case NetlinkException.EOPNOTSUPP -> " (the driver cannot disassociate user contexts, or the netns mode"
                    + " is shared)";
            case NetlinkException.EPERM -> " (needs CAP_NET_ADMIN)";
            case NetlinkException.EBUSY -> " (other network namespaces exist)";
            case NetlinkException.EINVAL -> " (kernel too old or bad request)";
            default -> "";
        };
    }

    private <T> T inNamespace(Path netns, java.util.concurrent.Callable<T> work) {
        try {
            return namespaces.callIn(netns, work);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new NetlinkException("in " + netns + ": " + e, 0);
        }
    }
}
