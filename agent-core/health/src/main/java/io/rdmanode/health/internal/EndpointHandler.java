// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.rdmanode.health.HttpEndpoint;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a whiteboard {@link HttpEndpoint} on its exact path. A handler that throws gets a one-line 500 if it
 * had not answered yet, and the stack trace goes to the log naming the bundle that registered it.
 */
final class EndpointHandler implements HttpHandler {

    private static final Logger LOG = LoggerFactory.getLogger(EndpointHandler.class);

    private final HttpEndpoint endpoint;
    private final String path;
    private final String owner;

    EndpointHandler(HttpEndpoint endpoint, String path, String owner) {
        this.endpoint = endpoint;
        this.path = path;
        this.owner = owner;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        if (!exchange.getRequestURI().getPath().equals(path)) {
            Exchanges.notFound(exchange);
            return;
        }
        try {
            endpoint.handle(exchange);
        } catch (IOException | RuntimeException e) {
            LOG.warn("http endpoint failed path={} owner={}", path, owner, e);
            if (exchange.getResponseCode() == -1) {
                Exchanges.sendText(exchange, 500, "internal error on " + path + ": " + Exchanges.describe(e));
            }
        } finally {
            exchange.close();
        }
    }
}
