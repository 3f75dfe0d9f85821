// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.util.List;
import java.util.Map;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The pools of one plugin bundle for its {@code /status} section: served pools, and pools whose configuration
 * was refused with the reason. Created by {@link DevicePluginLayer#statusRegistry()}; the bundle shows
 * {@link #status()} in its own section and fails readiness while {@link #refused()} is not empty. Thread-safe.
 *
 * @since 1.0
 */
@ProviderType
public interface StatusRegistry {

    void add(String name, ServedPool pool);

    /** A pool that is not served because its configuration is wrong. */
    void refused(String name, String problem);

    /** Removes the entry of {@code name}. */
    void remove(String name);

    /** Name to problem of every refused pool. */
    Map<String, String> refused();

    /** Every pool's {@link PoolStatus#toMap()} (refused ones as {@code name}, {@code refused}), by name. */
    List<Map<String, Object>> status();
}
