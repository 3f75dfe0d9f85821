// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.probe;

import java.util.Map;
import org.osgi.annotation.versioning.ProviderType;

/** The probe component's view of its configuration; registered while the component is active. */
@ProviderType
public interface Probe {

    /** The properties of the last activation or modification, without framework-added keys. */
    Map<String, Object> config();

    /** How many times this component instance was modified in place (DS {@code @Modified}). */
    int modifications();

    /** The bundle's {@code Probe-Build} header: tells two builds of the jar apart after a hot swap. */
    String build();
}
