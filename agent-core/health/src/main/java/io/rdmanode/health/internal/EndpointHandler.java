// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.rdmanode.health.HttpEndpoint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a whiteboard {@link HttpEndpoint} on its exact path, on a handler thread. A handler that throws gets a
 * one-line 500 if it had not answered yet, and the stack trace goes to the log naming the bundle that
 * registered it. It is also the exchange's {@link HttpContext}, which has no JDK server behind it
 * ({@link #getServer()} is null).
 */
final class EndpointHandler extends HttpContext {

    private static final Logger LOG = LoggerFactory.getLogger(EndpointHandler.class);

    private final HttpEndpoint endpoint;
    private final String path;
    private final String owner;
    private final Map<String, Object> attributes = new HashMap<>();
    private final List<Filter> filters = new ArrayList<>();

    EndpointHandler(HttpEndpoint endpoint, String path, String owner) {
        this.endpoint = endpoint;
        this.path = path;
        this.owner = owner;
    }

    void handle(NettyHttpExchange exchange) {
        try {
            endpoint.handle(exchange);
        } catch (NettyHttpExchange.ClientGone e) {
            // A stack trace per hang-up wrote ~37 lines each time (a megabyte for 300 in 5 s).
            LOG.debug("http client gone path={}: {}", path, e.getMessage());
        } catch (IOException | RuntimeException e) {
            LOG.warn("http endpoint failed path={} owner={}", path, owner, e);
            if (exchange.getResponseCode() == -1) {
                exchange.getResponseHeaders().clear();
                try {
                    Exchanges.sendText(exchange, 500, "internal error on " + path + ": " + Exchanges.describe(e));
                } catch (IOException gone) {
                    LOG.debug("cannot answer 500 path={}: {}", path, gone.toString());
                }
            }
        } finally {
            exchange.close();
        }
    }

    String owner() {
        return owner;
    }

    @Override
    public HttpHandler getHandler() {
        return endpoint;
    }

    @Override
    public void setHandler(HttpHandler handler) {
        throw new UnsupportedOperationException("the handler is the registered HttpEndpoint");
    }

    @Override
    public String getPath() {
        return path;
    }

    @Override
    public HttpServer getServer() {
        return null;
    }

    @Override
    public Map<String, Object> getAttributes() {
        return attributes;
    }

    @Override
    public List<Filter> getFilters() {
        return filters;
    }

    @Override
    public Authenticator setAuthenticator(Authenticator auth) {
        throw new UnsupportedOperationException("no authentication on the agent's endpoint");
    }

    @Override
    public Authenticator getAuthenticator() {
        return null;
    }
}
