// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

/**
 * One DS component configuration of an agent bundle, as {@code /status} lists it and {@code /readyz} judges it.
 *
 * @param name    component name, with the configuration name for factory configurations ({@code name~hca_a})
 * @param bundle  symbolic name of the declaring bundle
 * @param state   {@code ACTIVE}, {@code SATISFIED}, {@code UNSATISFIED_REFERENCE}, {@code FAILED_ACTIVATION},
 *                {@code UNSATISFIED_CONFIGURATION} or {@code DISABLED}
 * @param detail  one line for an operator: what it waits for or why it failed
 * @param counted whether readiness depends on it (enabled and not waiting for a configuration)
 * @param failing whether it makes the agent not ready
 */
record ComponentInfo(String name, String bundle, String state, String detail, boolean counted, boolean failing) {
}
