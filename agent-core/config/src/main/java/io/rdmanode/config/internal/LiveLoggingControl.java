// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.util.Map;
import java.util.function.Consumer;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * Hands {@code agent.runtime.log.level} and {@code .format} to the launcher's logging backend while the agent
 * runs. The launcher offers it as a {@code java.util.function.Consumer} service marked
 * {@code rdma.agent.control=logging} (its backend is outside every bundle); without a launcher (a test
 * framework) there is none and logging stays as it is.
 */
final class LiveLoggingControl implements Consumer<Map<String, Object>> {

    private static final String FILTER = "(rdma.agent.control=logging)";

    private final BundleContext context;

    LiveLoggingControl(BundleContext context) {
        this.context = context;
    }

    /** {@code runtime} is the validated {@code agent.runtime} section, keys flattened ({@code log.level}). */
    @Override
    @SuppressWarnings("unchecked")
    public void accept(Map<String, Object> runtime) {
        ServiceReference<?>[] refs;
        try {
            refs = context.getServiceReferences(Consumer.class.getName(), FILTER);
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(FILTER, e);
        }
        if (refs == null || refs.length == 0) {
            return;
        }
        Object service = context.getService(refs[0]);
        try {
            if (service instanceof Consumer<?> control) {
                ((Consumer<Map<String, Object>>) control).accept(Map.of(
                        "level", runtime.getOrDefault("log.level", "info"),
                        "format", runtime.getOrDefault("log.format", "text")));
            }
        } finally {
            context.ungetService(refs[0]);
        }
    }
}
