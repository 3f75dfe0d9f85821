// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health;

import com.sun.net.httpserver.HttpHandler;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * An extra path served on the agent's HTTP port (for example {@code /metrics}), registered as a whiteboard
 * service. The handler is the JDK's {@link HttpHandler}, so existing handlers (client_java's
 * {@code MetricsHandler}) plug in unchanged. A path already served by another endpoint or by the health
 * bundle itself is refused with a warning naming both.
 *
 * <p>The server behind it is Netty, not the JDK's {@code HttpServer}: {@link #handle} gets an adapted
 * {@link com.sun.net.httpserver.HttpExchange} on one of the endpoint's few handler threads (a handler that blocks
 * holds one, and requests past the threads and a short queue are answered 503; {@code /healthz} is never among
 * them). Requests with a body are refused before the handler runs, and the exchange's
 * {@code getHttpContext().getServer()} is null.
 */
@ConsumerType
public interface HttpEndpoint extends HttpHandler {

    /** Absolute path, e.g. {@code /metrics}; exact match. */
    String path();
}
