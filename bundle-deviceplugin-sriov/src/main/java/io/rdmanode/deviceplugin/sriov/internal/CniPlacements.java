// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.cni.PodAttachments;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;

/**
 * The CNI plugin's persisted placements, keyed by the VF's PCI address. It exists only while the configuration
 * has a {@code cni} section (the CNI plugin's own PID), so a node without the CNI plugin has no component waiting
 * for it (which {@code /readyz} would count as unsatisfied).
 */
@Component(service = PodPlacements.class, configurationPid = "io.rdmanode.cni",
           configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class CniPlacements implements PodPlacements {

    private final PodAttachments attachments;

    @Activate
    public CniPlacements(@Reference PodAttachments attachments) {
        this.attachments = attachments;
    }

    @Override
    public List<Placement> placements() {
        return attachments.attachments().stream()
                .map(a -> new Placement(a.pciAddress(), a.rdmaDevice(), a.podNamespace() + "/" + a.podName(),
                        a.netns(), a.since().toString()))
                .toList();
    }
}
