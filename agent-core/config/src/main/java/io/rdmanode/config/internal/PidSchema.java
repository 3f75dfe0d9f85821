// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.util.Map;

/**
 * The configuration a component declares (its MetaType object class definition) for one PID.
 *
 * @param factory true for a factory PID: the file gives a list of named objects
 * @param bundle  symbolic name of the bundle that declares it, for messages
 */
record PidSchema(String pid, boolean factory, String bundle, Map<String, AttributeSchema> attributes) {
}
