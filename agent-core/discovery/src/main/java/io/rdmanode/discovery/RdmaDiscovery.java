// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.nio.file.Path;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The one model of the host's RDMA topology. Thread-safe; every method may be called from any thread.
 * Consumers hear changes through one channel, {@link #addListener(RdmaTopologyListener)}: each call gets the
 * new snapshot and the diff from the previous one. Values a snapshot does not keep (counters, link state,
 * rate) are read through {@link #counters()}: discovery is the agent's one reader of {@code class/infiniband}.
 *
 * @since 1.0
 */
@ProviderType
public interface RdmaDiscovery {

    /** The latest snapshot; never null, never blocks on I/O. Revision 1 is the first full scan. */
    HostSnapshot snapshot();

    /**
     * Re-reads the whole host now, on the calling thread, and returns the resulting snapshot. Listeners are
     * notified (before this returns) when something changed; an unchanged host keeps its revision.
     */
    HostSnapshot rescan();

    /**
     * Reads one RDMA device from the sysfs tree at {@code sys} as it is now, outside the snapshot and without
     * telling listeners. For a device moved into a pod (exclusive netns mode): the host's sysfs no longer lists
     * it, and only a thread with that namespace's own sysfs sees it (the netlink bundle's
     * {@code NetworkNamespaces.callInWithSysfs}, then {@code readDevice(Path.of("/sys"), name)} on that thread).
     *
     * @return empty when the tree has no such device
     * @throws DiscoveryException when the device is there but cannot be read, naming the file
     * @since 1.2
     */
    Optional<RdmaDevice> readDevice(Path sys, String name);

    /**
     * The values of the devices in the tree discovery reads (its configured sysfs root), read at call time.
     *
     * @since 1.3
     */
    RdmaCounters counters();

    /**
     * The values of the devices in the sysfs tree at {@code sys}, read at call time: for a device moved into a pod,
     * {@code counters(Path.of("/sys"))} on a thread inside the pod's namespace with its own sysfs (see
     * {@link #readDevice}).
     *
     * @since 1.3
     */
    RdmaCounters counters(Path sys);

    /**
     * Adds a listener, the one channel to discovery's consumers: called after every change with the new snapshot
     * and the diff, on the discovery's scan thread, never concurrently. Remove it when the consumer goes.
     */
    void addListener(RdmaTopologyListener listener);

    void removeListener(RdmaTopologyListener listener);
}
