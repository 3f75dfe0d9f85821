// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.rdmanode.cni.PreparedPodDevices;
import java.util.List;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The VFs of prepared claims by pod, for the rdma CNI ({@link PreparedPodDevices}): a pod whose claim the driver
 * prepared gets its VF's RDMA device moved into its network namespace when its sandbox network is set up, with no
 * NRI hook. A component of its own, because the CNI's API is an optional import: without the CNI bundle only this
 * component cannot load, and the driver runs on.
 */
@Component(service = PreparedPodDevices.class)
public final class DraPodDevices implements PreparedPodDevices {

    /** The driver while it runs (a dra section is configured); without it no pod has prepared devices. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile DraFigures driver;

    @Override
    public List<String> forPod(String podUid) {
        DraFigures d = driver;
        return d == null ? List.of() : d.devicesOfPod(podUid);
    }
}
