// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a component accepts for one property, taken from its MetaType attribute definition.
 *
 * @param cardinality 0 for a single value, otherwise a list (MetaType's array/vector cardinality)
 * @param required    true when the component has no default, so the file must give a value
 * @param options     allowed values (empty: any)
 * @param validator   the definition's own check of a value's string form: empty or null when valid
 *                    (MetaType {@code AttributeDefinition.validate}), used for min/max ranges
 */
record AttributeSchema(String id, AttributeType type, int cardinality, boolean required, List<String> options,
                       Function<String, String> validator) {

    static AttributeSchema of(String id, AttributeType type) {
        return new AttributeSchema(id, type, 0, false, List.of(), value -> null);
    }

    boolean isList() {
        return cardinality != 0;
    }

    Optional<String> validate(String value) {
        String message = validator.apply(value);
        return message == null || message.isEmpty() ? Optional.empty() : Optional.of(message);
    }
}
