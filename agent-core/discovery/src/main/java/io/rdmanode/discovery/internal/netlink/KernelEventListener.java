// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.netlink;

import io.rdmanode.discovery.internal.ScanHints;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens to NETLINK_KOBJECT_UEVENT (group 1: kernel uevents) and NETLINK_ROUTE (RTMGRP_LINK) on two
 * dedicated threads and hands {@link ScanHints} to a sink (the engine, which debounces them). Sockets are
 * opened in the caller's network namespace: the one whose netdevs discovery reports.
 */
public final class KernelEventListener implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KernelEventListener.class);
    private static final int RTMGRP_LINK = 1;
    private static final int UEVENT_KERNEL_GROUP = 1;
    private static final int POLL_MS = 250;

    private final NetlinkSocket uevents;
    private final NetlinkSocket rtnl;
    private final Thread ueventThread;
    private final Thread rtnlThread;

    /** Opens both sockets and starts the threads; throws {@link NetlinkException} when that is impossible. */
    public KernelEventListener(Consumer<ScanHints> sink) {
        uevents = NetlinkSocket.open(NetlinkSocket.NETLINK_KOBJECT_UEVENT, UEVENT_KERNEL_GROUP, POLL_MS);
        try {
            rtnl = NetlinkSocket.open(NetlinkSocket.NETLINK_ROUTE, RTMGRP_LINK, POLL_MS);
        } catch (NetlinkException e) {
            uevents.close();
            throw e;
        }
        ueventThread = start("rdma-agent-discovery-uevent", uevents, KernelEvents::fromUevent, sink);
        rtnlThread = start("rdma-agent-discovery-rtnl", rtnl, KernelEvents::fromRtnetlink, sink);
    }

    private static Thread start(String name, NetlinkSocket socket,
                                BiFunction<byte[], Integer, Optional<ScanHints>> parse, Consumer<ScanHints> sink) {
        Thread t = new Thread(() -> loop(name, socket, parse, sink), name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void loop(String name, NetlinkSocket socket,
                             BiFunction<byte[], Integer, Optional<ScanHints>> parse, Consumer<ScanHints> sink) {
        byte[] buf = new byte[64 * 1024];
        while (!socket.isClosed()) {
            try {
                int n = socket.receive(buf);
                if (n > 0) {
                    parse.apply(buf, n).ifPresent(sink);
                }
            } catch (NetlinkException e) {
                if (socket.isClosed()) {
                    return;
                }
                // ENOBUFS: the kernel dropped events because we were slow; only a full rescan is safe then.
                LOG.warn("{}: {}; requesting a full rescan", name, e.getMessage());
                sink.accept(ScanHints.fullScan());
            } catch (RuntimeException e) {
                LOG.warn("{}: cannot handle event: {}", name, e.toString());
            }
        }
    }

    @Override
    public void close() {
        uevents.close();
        rtnl.close();
        join(ueventThread);
        join(rtnlThread);
    }

    private static void join(Thread t) {
        try {
            t.join(2 * POLL_MS + 500);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
