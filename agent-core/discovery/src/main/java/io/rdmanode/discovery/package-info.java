// SPDX-License-Identifier: Apache-2.0
/**
 * The host's RDMA topology as one OSGi service: {@link io.rdmanode.discovery.RdmaDiscovery} hands out
 * immutable {@link io.rdmanode.discovery.HostSnapshot}s with a revision number, and
 * {@link io.rdmanode.discovery.RdmaTopologyListener}s added with
 * {@link io.rdmanode.discovery.RdmaDiscovery#addListener} (the one channel) receive each new snapshot with a
 * {@link io.rdmanode.discovery.TopologyDiff}; {@link io.rdmanode.discovery.RdmaCounters} reads the values a
 * snapshot does not keep (counters, link state, rate) at call time, so discovery is the one reader of
 * {@code class/infiniband}. Every bundle (device plugins, CNI, Freeflow, metrics) sees the
 * host through this package only. Sources: {@code Documentation/ABI/stable/sysfs-class-infiniband},
 * {@code Documentation/ABI/testing/sysfs-bus-pci}, {@code Documentation/ABI/testing/sysfs-class-net},
 * {@code include/uapi/rdma/rdma_netlink.h}.
 *
 * <p>1.1: bond members ({@link io.rdmanode.discovery.NetDevice#bondMembers()},
 * {@link io.rdmanode.discovery.RdmaDevice#netDevices()}) and a soft device's parent PCI function
 * ({@link io.rdmanode.discovery.HostSnapshot#pciFunctionOf}).
 *
 * <p>1.2: {@link io.rdmanode.discovery.RdmaDiscovery#readDevice} (a device in a pod's sysfs).
 *
 * <p>1.3: {@link io.rdmanode.discovery.RdmaDiscovery#counters()}, {@link io.rdmanode.discovery.RdmaCounters},
 * {@link io.rdmanode.discovery.RdmaCounter}: counters and link attributes read through discovery (metrics no
 * longer walks the tree itself).
 *
 * @since 1.0
 */
@Export
@Version("1.3.0")
package io.rdmanode.discovery;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
