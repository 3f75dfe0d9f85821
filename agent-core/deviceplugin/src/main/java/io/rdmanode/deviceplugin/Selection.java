// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The result of applying {@link Selectors} to candidates: what matched, in candidate order, and why each other
 * candidate did not.
 *
 * @since 1.0
 */
public record Selection(List<CandidateDevice> matched, List<Exclusion> excluded) {

    public Selection {
        matched = List.copyOf(matched);
        excluded = List.copyOf(excluded);
    }

    public List<String> matchedKeys() {
        return matched.stream().map(CandidateDevice::key).toList();
    }

    /** Device key to reason, in candidate order (what {@code /status} shows). */
    public Map<String, String> exclusionReasons() {
        return excluded.stream().collect(Collectors.toMap(Exclusion::device, Exclusion::reason, (a, b) -> a,
                java.util.LinkedHashMap::new));
    }

    /** Matched candidates by key. */
    public Map<String, CandidateDevice> byKey() {
        return matched.stream().collect(Collectors.toMap(CandidateDevice::key, Function.identity(), (a, b) -> a,
                java.util.LinkedHashMap::new));
    }
}
