// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni;

import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Devices another owner on the node prepared for a pod, an OSGi service: the DRA driver's prepared claims, whose
 * pods carry no {@code deviceID} for the CNI (no device plugin, no Multus annotation). When an ADD comes without a
 * {@code deviceID}, the CNI takes the pod's prepared VF from here by {@code K8S_POD_UID} (in {@code CNI_ARGS}),
 * and moves its RDMA device into the pod as it does for a device-plugin VF; no NRI hook is needed.
 *
 * @since 1.1
 */
@ConsumerType
public interface PreparedPodDevices {

    /** The PCI addresses prepared for the pod {@code podUid}, in the order they were prepared; empty when none. */
    List<String> forPod(String podUid);
}
