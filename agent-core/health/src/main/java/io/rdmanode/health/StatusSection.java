// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A top-level member of the {@code /status} JSON document, contributed by one bundle. {@link #status()}
 * returns a tree made of {@link java.util.Map} (String keys), {@link java.util.List}, {@link String},
 * {@link Number}, {@link Boolean} and {@code null}; it is serialised on each request, from the endpoint's
 * thread, so it should return a snapshot the component already holds.
 */
@ConsumerType
public interface StatusSection {

    /** Member name in the document, e.g. {@code config}; must not be one of the endpoint's own members. */
    String name();

    Object status();
}
