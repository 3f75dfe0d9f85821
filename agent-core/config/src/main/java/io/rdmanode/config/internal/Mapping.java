// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.util.List;
import java.util.Map;

/**
 * The result of mapping one parsed file: what to apply, or why not.
 *
 * @param configurations configurations for components whose bundles are installed
 * @param bundleSwitches {@code agent.bundles.<name>.enabled}, by Agent-Bundle name
 * @param runtime        {@code agent.runtime} as read (the launcher applies it at start-up)
 * @param unclaimed      paths no installed bundle declares: kept (not applied, not deleted) for hot swap
 * @param errors         any one of them rejects the whole file
 * @param warnings       reported, do not block the file
 */
record Mapping(List<TargetConfiguration> configurations, Map<String, Boolean> bundleSwitches,
               Map<String, Object> runtime, List<String> unclaimed, List<Problem> errors, List<Problem> warnings) {

    boolean valid() {
        return errors.isEmpty();
    }
}
