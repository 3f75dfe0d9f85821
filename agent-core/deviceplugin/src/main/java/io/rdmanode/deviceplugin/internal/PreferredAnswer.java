// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.kubelet.DevicePluginException;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The layer's rules for {@code GetPreferredAllocation}, whatever a pool prefers: kubelet offers {@code available}
 * (which includes {@code mustInclude}, the IDs a pod's init container already holds) and takes the answer as the
 * container's devices, so the answer holds every must-include ID, only available IDs, no ID twice, and exactly
 * {@code size} of them. A request that cannot be met is refused as INVALID_ARGUMENT, not answered short.
 */
final class PreferredAnswer {

    private PreferredAnswer() {
    }

    /** @throws DevicePluginException INVALID_ARGUMENT when no answer can keep the rules */
    static void check(String resource, List<String> available, List<String> mustInclude, int size) {
        Set<String> offered = new HashSet<>(available);
        List<String> foreign = mustInclude.stream().filter(id -> !offered.contains(id)).distinct().toList();
        String problem = null;
        if (size < 1) {
            problem = "allocation size " + size + " is not positive";
        } else if (!foreign.isEmpty()) {
            problem = "must-include IDs " + foreign + " are not among the available IDs";
        } else if (new HashSet<>(mustInclude).size() > size) {
            problem = "allocation size " + size + " is smaller than the " + new HashSet<>(mustInclude).size()
                    + " must-include IDs";
        } else if (offered.size() < size) {
            problem = "allocation size " + size + " exceeds the " + offered.size() + " available IDs";
        }
        if (problem != null) {
            throw new DevicePluginException(DevicePluginException.Code.INVALID_ARGUMENT, resource,
                    "GetPreferredAllocation for " + resource + ": " + problem);
        }
    }

    /**
     * {@code preferred} made to keep the rules: must-include IDs first, then the preferred IDs that were offered,
     * then other offered IDs in kubelet's order until {@code size}. Call after {@link #check}.
     */
    static List<String> of(List<String> preferred, List<String> available, List<String> mustInclude, int size) {
        Set<String> offered = new HashSet<>(available);
        LinkedHashSet<String> answer = new LinkedHashSet<>(mustInclude);
        for (String id : preferred) {
            if (answer.size() >= size) {
                break;
            }
            if (offered.contains(id)) {
                answer.add(id);
            }
        }
        for (String id : available) {
            if (answer.size() >= size) {
                break;
            }
            answer.add(id);
        }
        return List.copyOf(answer);
    }
}
