// SPDX-License-Identifier: Apache-2.0
/**
 * The kernel's netlink families as plain Java, with no native type in sight: RDMA netlink
 * ({@link io.rdmanode.netlink.RdmaNetlink}: device list, the system netns mode, moving an RDMA device into a
 * network namespace and back), rtnetlink link events and kernel uevents
 * ({@link io.rdmanode.netlink.KernelEventHandler}), and running work inside another network namespace
 * ({@link io.rdmanode.netlink.NetworkNamespaces}), optionally with that namespace's sysfs view (since 1.1). {@link io.rdmanode.netlink.Netlink} hands out the
 * implementations for plain code; the same objects are DS services for components. Sources:
 * {@code include/uapi/rdma/rdma_netlink.h}, {@code include/uapi/linux/rtnetlink.h},
 * {@code lib/kobject_uevent.c}, setns(2).
 *
 * @since 1.0
 */
@Export
@Version("1.1.0")
package io.rdmanode.netlink;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
