// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.util.Objects;

/**
 * Why a candidate is not in a pool: the first selector kind (in {@link Selectors}' order) it fails, the
 * device's value and the selector's list, e.g. {@code vendors: vendor 8086 not in [15b3]}.
 *
 * @param device   the candidate's key
 * @param selector the selector kind, as written in the configuration ({@code vendors}, {@code pfNames}, ...)
 * @param value    the device's value for that kind, e.g. {@code 8086} or {@code [ens1f0, ens1f1]}
 * @param reason   one human sentence naming both
 * @since 1.0
 */
public record Exclusion(String device, String selector, String value, String reason) {

    public Exclusion {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(selector, "selector");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(reason, "reason");
    }

    @Override
    public String toString() {
        return reason;
    }
}
