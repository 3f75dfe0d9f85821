// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import org.osgi.service.metatype.AttributeDefinition;

/** The MetaType attribute types the bridge converts HOCON values to (MetaType spec, AttributeDefinition). */
enum AttributeType {
    STRING, LONG, INTEGER, SHORT, BYTE, CHARACTER, DOUBLE, FLOAT, BOOLEAN, PASSWORD;

    static AttributeType of(int metaType) {
        return switch (metaType) {
            case AttributeDefinition.LONG -> LONG;
            case AttributeDefinition.INTEGER -> INTEGER;
            case AttributeDefinition.SHORT -> SHORT;
            case AttributeDefinition.BYTE -> BYTE;
            case AttributeDefinition.CHARACTER -> CHARACTER;
            case AttributeDefinition.DOUBLE -> DOUBLE;
            case AttributeDefinition.FLOAT -> FLOAT;
            case AttributeDefinition.BOOLEAN -> BOOLEAN;
            case AttributeDefinition.PASSWORD -> PASSWORD;
            default -> STRING;
        };
    }

    String describe() {
        return switch (this) {
            case LONG, INTEGER, SHORT, BYTE -> "an integer";
            case DOUBLE, FLOAT -> "a number";
            case BOOLEAN -> "true or false";
            case CHARACTER -> "a single character";
            default -> "a string";
        };
    }
}
