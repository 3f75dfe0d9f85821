// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import java.util.List;

/**
 * Which VF's RDMA device the RDMA CNI plugin placed in which pod, as a service inside this bundle. It exists
 * only while the CNI plugin runs; the registry binds it optionally, so the registry's class never names the
 * CNI bundle's types and loads without it.
 */
public interface PodPlacements {

    /** One VF's RDMA device in one pod. */
    record Placement(String vf, String rdmaDevice, String pod, String netns, String since) {
    }

    List<Placement> placements();
}
