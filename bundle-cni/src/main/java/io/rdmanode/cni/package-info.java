// SPDX-License-Identifier: Apache-2.0
/**
 * Which RDMA device the rdma CNI plugin placed in which pod: {@link io.rdmanode.cni.PodAttachments} is an OSGi
 * service (registered by bundle-cni) that the metrics bundle ({@code pod_namespace}/{@code pod_name} labels)
 * and the SR-IOV device plugin read; {@link io.rdmanode.cni.PodAttachment} is one placement as persisted.
 *
 * @since 1.0
 */
@Export
@Version("1.1.0")
package io.rdmanode.cni;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
