// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Writing answers on a JDK {@link HttpExchange}: status, headers and body, with HEAD getting no body. */
final class Exchanges {

    private Exchanges() {
    }

    static void send(HttpExchange exchange, HealthResponses.Response response) throws IOException {
        byte[] body = response.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", response.contentType());
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        if ("HEAD".equals(exchange.getRequestMethod()) || body.length == 0) {
            // -1: no body. Zero would mean "chunked, length unknown" to this server.
            exchange.sendResponseHeaders(response.code(), -1);
            return;
        }
        exchange.sendResponseHeaders(response.code(), body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    static void sendText(HttpExchange exchange, int code, String line) throws IOException {
        send(exchange, new HealthResponses.Response(code, HealthResponses.TEXT, line + "\n"));
    }

    static void notFound(HttpExchange exchange) throws IOException {
        try {
            sendText(exchange, 404, "not found: " + exchange.getRequestURI().getPath());
        } finally {
            exchange.close();
        }
    }

    /** Whether the query has a parameter of that name, with or without a value ({@code ?verbose}). */
    static boolean hasQueryParameter(HttpExchange exchange, String name) {
        String query = exchange.getRequestURI().getRawQuery();
        return query != null && Arrays.stream(query.split("&")).anyMatch(p -> p.split("=", 2)[0].equals(name));
    }

    /** One line naming the failure, for a 500 body; the stack trace goes to the log. */
    static String describe(Throwable failure) {
        String message = failure.getMessage();
        return failure.getClass().getSimpleName() + (message == null ? "" : ": " + message.lines().findFirst()
                .orElse(""));
    }
}
