// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import io.rdmanode.agent.LoggingControl;
import java.util.Map;
import java.util.function.Consumer;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * Hands {@code agent.runtime.log.level} and {@code .format} to the launcher's logging backend while the agent
 * runs, through the platform API's {@link LoggingControl} service. Without a launcher (a test framework) there
 * is none and logging stays as it is. Looked up on every apply: applies are rare, and the launcher's service
 * lives as long as the framework.
 */
final class LiveLoggingControl implements Consumer<Map<String, Object>> {

    private final BundleContext context;

    LiveLoggingControl(BundleContext context) {
        this.context = context;
    }

    /** {@code runtime} is the validated {@code agent.runtime} section, keys flattened ({@code log.level}). */
    @Override
    public void accept(Map<String, Object> runtime) {
        ServiceReference<LoggingControl> ref = context.getServiceReference(LoggingControl.class);
        if (ref == null) {
            return;
        }
        LoggingControl control = context.getService(ref);
        if (control == null) {
            return;
        }
        try {
            control.configure(LoggingControl.parseLevel(String.valueOf(runtime.getOrDefault("log.level", "info"))),
                    LoggingControl.parseFormat(String.valueOf(runtime.getOrDefault("log.format", "text"))));
        } finally {
            context.ungetService(ref);
        }
    }
}
