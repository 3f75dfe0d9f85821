// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import io.rdmanode.netlink.KernelEventHandler;
import io.rdmanode.netlink.LinkEvent;
import io.rdmanode.netlink.Listening;
import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.Uevent;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens to NETLINK_KOBJECT_UEVENT (group 1: kernel uevents) and NETLINK_ROUTE (RTMGRP_LINK) on two
 * dedicated threads. Sockets are opened in the caller's network namespace.
 */
public final class KernelEventListener implements Listening {

    private static final Logger LOG = LoggerFactory.getLogger(KernelEventListener.class);
    private static final int RTMGRP_LINK = 1;
    private static final int UEVENT_KERNEL_GROUP = 1;
    private static final int POLL_MS = 250;

    private final NetlinkSocket uevents;
    private final NetlinkSocket rtnl;
    private final Thread ueventThread;
    private final Thread rtnlThread;

    public KernelEventListener(String prefix, KernelEventHandler handler) {
        uevents = NetlinkSocket.open(NetlinkSocket.NETLINK_KOBJECT_UEVENT, UEVENT_KERNEL_GROUP, POLL_MS);
        try {
            rtnl = NetlinkSocket.open(NetlinkSocket.NETLINK_ROUTE, RTMGRP_LINK, POLL_MS);
        } catch (NetlinkException e) {
            uevents.close();
            throw e;
        }
        ueventThread = start(prefix + "-uevent", uevents, handler,
                (buf, n) -> handler.uevent(Uevent.parse(buf, n)));
        rtnlThread = start(prefix + "-rtnl", rtnl, handler,
                (buf, n) -> LinkEvent.parse(buf, n).forEach(handler::link));
    }

    private static Thread start(String name, NetlinkSocket socket, KernelEventHandler handler,
                                BiConsumer<byte[], Integer> parse) {
        Thread t = new Thread(() -> loop(name, socket, handler, parse), name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void loop(String name, NetlinkSocket socket, KernelEventHandler handler,
                             BiConsumer<byte[], Integer> parse) {
        byte[] buf = new byte[64 * 1024];
        while (!socket.isClosed()) {
            try {
                int n = socket.receive(buf);
                if (n > 0) {
                    parse.accept(buf, n);
                }
            } catch (NetlinkException e) {
                if (socket.isClosed()) {
                    return;
                }
                // ENOBUFS: the kernel dropped events because we were slow; the handler must resynchronise.
                LOG.warn("{}: {}", name, e.getMessage());
                handler.overflow(name + ": " + e.getMessage());
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
