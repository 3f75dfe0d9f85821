// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import com.sun.net.httpserver.HttpExchange;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Turning answers into HTTP: a built-in's {@link HealthResponses.Response}, or a line on an exchange. */
final class Exchanges {

    private Exchanges() {
    }

    /** The whole answer; a HEAD answer keeps the length header and drops the body (the codec knows it is HEAD). */
    static FullHttpResponse full(HealthResponses.Response response, boolean head) {
        byte[] body = response.body().getBytes(StandardCharsets.UTF_8);
        FullHttpResponse out = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(response.code()), head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
        out.headers().set(HttpHeaderNames.CONTENT_TYPE, response.contentType())
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        return out;
    }

    static void sendText(HttpExchange exchange, int code, String line) throws IOException {
        byte[] body = (line + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", HealthResponses.TEXT);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(code, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    /** Whether the query has a parameter of that name, with or without a value ({@code ?verbose}). */
    static boolean hasQueryParameter(URI uri, String name) {
        String query = uri.getRawQuery();
        return query != null && Arrays.stream(query.split("&")).anyMatch(p -> p.split("=", 2)[0].equals(name));
    }

    /** The first value of query parameter {@code name}; empty when absent. */
    static java.util.Optional<String> queryParameter(URI uri, String name) {
        String query = uri.getRawQuery();
        if (query == null) {
            return java.util.Optional.empty();
        }
        return Arrays.stream(query.split("&")).map(p -> p.split("=", 2)).filter(p -> p[0].equals(name))
                .map(p -> p.length > 1 ? p[1] : "").findFirst();
    }

    /** One line naming the failure, for a 500 body; the stack trace goes to the log. */
    static String describe(Throwable failure) {
        String message = failure.getMessage();
        return failure.getClass().getSimpleName() + (message == null ? "" : ": " + message.lines().findFirst()
                .orElse(""));
    }
}
