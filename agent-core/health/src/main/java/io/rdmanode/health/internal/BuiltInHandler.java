// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of the health bundle's own paths: exact path only (the JDK server matches contexts by prefix), GET and
 * HEAD only, and a failure while computing the answer becomes a one-line 500 with the stack trace in the log.
 */
final class BuiltInHandler implements HttpHandler {

    private static final Logger LOG = LoggerFactory.getLogger(BuiltInHandler.class);

    private final String path;
    private final Function<HttpExchange, HealthResponses.Response> answer;

    BuiltInHandler(String path, Function<HttpExchange, HealthResponses.Response> answer) {
        this.path = path;
        this.answer = answer;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        if (!exchange.getRequestURI().getPath().equals(path)) {
            Exchanges.notFound(exchange);
            return;
        }
        try {
            String method = exchange.getRequestMethod();
            if (!"GET".equals(method) && !"HEAD".equals(method)) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                Exchanges.sendText(exchange, 405, "method " + method + " not allowed on " + path);
                return;
            }
            HealthResponses.Response response;
            try {
                response = answer.apply(exchange);
            } catch (RuntimeException e) {
                LOG.warn("request failed method={} path={}", method, path, e);
                response = new HealthResponses.Response(500, HealthResponses.TEXT,
                        "internal error on " + path + ": " + Exchanges.describe(e) + "\n");
            }
            LOG.debug("request method={} path={} code={}", method, path, response.code());
            Exchanges.send(exchange, response);
        } finally {
            exchange.close();
        }
    }
}
