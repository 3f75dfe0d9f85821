// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers which contributors are currently failing, so a check or section that throws on every request is
 * logged once per failure episode rather than once per probe. Recovery clears the key; a later failure warns
 * again.
 */
final class WarnOnce {

    private final Set<String> failing = ConcurrentHashMap.newKeySet();

    /** True the first time {@code key} fails since it last worked. */
    boolean firstFailure(String key) {
        return failing.add(key);
    }

    void recovered(String key) {
        failing.remove(key);
    }
}
