// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink;

import org.osgi.annotation.versioning.ConsumerType;

/** Receives kernel events on the listener's threads (one for uevents, one for rtnetlink); keep it quick. */
@ConsumerType
public interface KernelEventHandler {

    void uevent(Uevent event);

    void link(LinkEvent event);

    /** The kernel dropped events (ENOBUFS) or a socket failed: whatever the handler tracks may be stale. */
    void overflow(String reason);
}
