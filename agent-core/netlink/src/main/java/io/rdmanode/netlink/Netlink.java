// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink;

import io.rdmanode.netlink.internal.KernelEventListener;
import io.rdmanode.netlink.internal.NativeNamespaces;
import io.rdmanode.netlink.internal.RdmaNetlinkClient;

/**
 * The real implementations for code that is not a DS component (the same ones are registered as services).
 * Nothing native is loaded until a method is called; a missing libc binding surfaces as a
 * {@link NetlinkException} then.
 */
public final class Netlink {

    private Netlink() {
    }

    public static NetworkNamespaces namespaces() {
        return NativeNamespaces.INSTANCE;
    }

    public static RdmaNetlink rdma() {
        return RdmaNetlinkClient.NATIVE;
    }

    /**
     * Starts two daemon threads named {@code threadPrefix-uevent} and {@code threadPrefix-rtnl} that read
     * kernel uevents and rtnetlink link messages in the calling thread's network namespace and hand them to
     * {@code handler} until the returned handle is closed; a {@link NetlinkException} when a socket cannot be
     * opened.
     */
    public static Listening listen(String threadPrefix, KernelEventHandler handler) {
        return new KernelEventListener(threadPrefix, handler);
    }
}
