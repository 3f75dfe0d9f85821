// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health;

import com.sun.net.httpserver.HttpHandler;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * An extra path served on the agent's HTTP port (for example {@code /metrics}), registered as a whiteboard
 * service. The handler is the JDK's {@link HttpHandler}, so existing handlers (client_java's
 * {@code MetricsHandler}) plug in unchanged. A path already served by another endpoint or by the health
 * bundle itself is refused with a warning naming both.
 */
@ConsumerType
public interface HttpEndpoint extends HttpHandler {

    /** Absolute path, e.g. {@code /metrics}; exact match. */
    String path();
}
