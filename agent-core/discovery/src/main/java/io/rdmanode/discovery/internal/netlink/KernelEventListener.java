// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.netlink;

import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.netlink.KernelEventHandler;
import io.rdmanode.netlink.LinkEvent;
import io.rdmanode.netlink.Listening;
import io.rdmanode.netlink.Netlink;
import io.rdmanode.netlink.Uevent;
import java.util.List;
import java.util.function.Consumer;

/**
 * Kernel uevents and rtnetlink link messages (the netlink bundle's listener, in the caller's network
 * namespace: the one whose netdevs discovery reports) turned into {@link ScanHints} for the engine, which
 * debounces them. Dropped events (ENOBUFS) ask for a full rescan: only that is safe then.
 */
public final class KernelEventListener implements AutoCloseable {

    private final Listening listening;

    /** Opens both sockets and starts the threads; throws {@code NetlinkException} when that is impossible. */
    public KernelEventListener(Consumer<ScanHints> sink) {
        listening = Netlink.listen("rdma-agent-discovery", new KernelEventHandler() {
            @Override
            public void uevent(Uevent event) {
                KernelEvents.fromUevent(event).ifPresent(sink);
            }

            @Override
            public void link(LinkEvent event) {
                KernelEvents.fromLinks(List.of(event)).ifPresent(sink);
            }

            @Override
            public void overflow(String reason) {
                sink.accept(ScanHints.fullScan());
            }
        });
    }

    @Override
    public void close() {
        listening.close();
    }
}
