// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One answer of {@link PodDevices#running()}.
 *
 * @param source         where the holdings come from
 * @param devices        one entry per device a container holds, in the source's order
 * @param fallbackReason why the pod-resources API was not used (e.g. {@code "pod-resources socket
 *                       /var/lib/kubelet/pod-resources/kubelet.sock: absent"}); empty when it was
 * @param readAt         when the source answered
 * @since 1.3
 */
public record PodHoldings(Source source, List<HeldDevice> devices, String fallbackReason, Instant readAt) {

    /** Where the holdings come from. */
    public enum Source {
        /** kubelet's pod-resources API ({@code v1.PodResourcesLister/List}): pods by namespace and name. */
        POD_RESOURCES_API,
        /** kubelet's device-manager checkpoint file: pods by UID only (no namespace or name). */
        CHECKPOINT
    }

    public PodHoldings {
        Objects.requireNonNull(source, "source");
        devices = List.copyOf(devices);
        Objects.requireNonNull(fallbackReason, "fallbackReason");
        Objects.requireNonNull(readAt, "readAt");
    }

    /** The devices held under {@code resourceName}. */
    public Set<String> deviceIds(String resourceName) {
        return devices.stream().filter(d -> d.resourceName().equals(resourceName)).map(HeldDevice::deviceId)
                .collect(Collectors.toUnmodifiableSet());
    }
}
