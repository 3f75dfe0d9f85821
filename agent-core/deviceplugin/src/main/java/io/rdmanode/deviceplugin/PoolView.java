// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.kubelet.Device;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a pool is on one host snapshot, computed by {@link ResourcePool#compute}: the device IDs to advertise,
 * the selection behind them, which matched devices cannot be used and why, the pool's health and the
 * plugin's own status fields. Immutable.
 *
 * @param revision  the snapshot's revision
 * @param devices   what ListAndWatch sends
 * @param selection matched candidates and exclusions with reasons
 * @param unusable  matched device key to why it is left out of Allocate (ports down, uverbs missing)
 * @param reason    why the pool is unhealthy; empty when healthy
 * @param details   plugin-specific {@code /status} fields, in order (shown after the common ones)
 * @since 1.0
 */
public record PoolView(long revision, List<Device> devices, Selection selection, Map<String, String> unusable,
                       boolean healthy, String reason, Map<String, Object> details) {

    public PoolView {
        devices = List.copyOf(devices);
        Objects.requireNonNull(selection, "selection");
        unusable = Collections.unmodifiableMap(new LinkedHashMap<>(unusable));
        Objects.requireNonNull(reason, "reason");
        details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }

    /** Matched candidates that are usable, in order: what Allocate hands out. */
    public List<CandidateDevice> usable() {
        return selection.matched().stream().filter(c -> !unusable.containsKey(c.key())).toList();
    }

    /** Same content apart from the revision. */
    public boolean sameContent(PoolView other) {
        return other != null && devices.equals(other.devices) && selection.equals(other.selection)
                && unusable.equals(other.unusable) && healthy == other.healthy && reason.equals(other.reason)
                && details.equals(other.details);
    }
}
