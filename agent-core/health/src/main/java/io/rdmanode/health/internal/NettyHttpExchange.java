// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Netty request seen as the JDK's {@link HttpExchange}, so that {@link io.rdmanode.health.HttpEndpoint}
 * handlers (client_java's {@code MetricsHandler} among them) run unchanged on the Netty server. Used from one
 * handler thread. As with the JDK server: {@code sendResponseHeaders(code, n)} with n > 0 sends a body of exactly
 * n bytes, 0 a chunked body of any length, -1 none; a HEAD answer carries no body whatever is written. Request
 * bodies are refused before a handler runs, so {@link #getRequestBody()} is empty. The body is sent in chunks of
 * {@value #CHUNK} bytes, each written to the socket before the next is taken (a slow reader holds back the
 * handler, not the heap); a chunk the client does not take within the write timeout closes the connection.
 */
final class NettyHttpExchange extends HttpExchange {

    static final int CHUNK = 32 * 1024;

    private final HttpConnection connection;
    private final HttpRequest request;
    private final URI uri;
    private boolean keepAlive;
    private final long writeTimeoutMillis;
    private final HttpContext context;
    private final Headers requestHeaders = new Headers();
    private final Headers responseHeaders = new Headers();
    private final Map<String, Object> attributes = new HashMap<>();
    private InputStream in = InputStream.nullInputStream();
    private OutputStream out;
    private Body body;
    private int code = -1;
    private boolean finished;

    NettyHttpExchange(HttpConnection connection, HttpRequest request, URI uri, boolean keepAlive,
                      long writeTimeoutMillis, HttpContext context) {
        this.connection = connection;
        this.request = request;
        this.uri = uri;
        this.keepAlive = keepAlive;
        this.writeTimeoutMillis = writeTimeoutMillis;
        this.context = context;
        request.headers().forEach(header -> requestHeaders.add(header.getKey(), header.getValue()));
    }

    @Override
    public Headers getRequestHeaders() {
        return requestHeaders;
    }

    @Override
    public Headers getResponseHeaders() {
        return responseHeaders;
    }

    @Override
    public URI getRequestURI() {
        return uri;
    }

    @Override
    public String getRequestMethod() {
        return request.method().name();
    }

    @Override
    public HttpContext getHttpContext() {
        return context;
    }

    @Override
    public InputStream getRequestBody() {
        return in;
    }

    @Override
    public OutputStream getResponseBody() {
        return out != null ? out : body();
    }

    private Body body() {
        if (body == null) {
            body = new Body();
            out = body;
        }
        return body;
    }

    @Override
    public void sendResponseHeaders(int rCode, long responseLength) throws IOException {
        if (code != -1) {
            throw new IOException("headers already sent");
        }
        code = rCode;
        boolean head = "HEAD".equals(getRequestMethod());
        boolean none = responseLength < 0 || head || rCode == 204 || rCode == 304;
        HttpResponseStatus status = HttpResponseStatus.valueOf(rCode);
        if (none) {
            DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    Unpooled.EMPTY_BUFFER);
            copyHeaders(response);
            if (!head && rCode != 204 && rCode != 304) {
                response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
            } else if (head && responseLength > 0) {
                response.headers().set(HttpHeaderNames.CONTENT_LENGTH, responseLength);
            }
            body().discarding();
            finished = true;
            connection.respond(response, keepAlive);
            return;
        }
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, status);
        copyHeaders(response);
        if (responseLength > 0) {
            response.headers().set(HttpHeaderNames.CONTENT_LENGTH, responseLength);
        } else if (request.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
            keepAlive = false;                                  // no chunks in HTTP/1.0: the close ends the body
        } else {
            response.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        HttpUtil.setKeepAlive(response, keepAlive);
        body().await(connection.context().writeAndFlush(response));
    }

    private void copyHeaders(HttpResponse response) {
        responseHeaders.forEach((name, values) -> response.headers().add(name, values));
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
        return (InetSocketAddress) connection.context().channel().remoteAddress();
    }

    @Override
    public int getResponseCode() {
        return code;
    }

    @Override
    public InetSocketAddress getLocalAddress() {
        return (InetSocketAddress) connection.context().channel().localAddress();
    }

    @Override
    public String getProtocol() {
        return request.protocolVersion().text();
    }

    @Override
    public Object getAttribute(String name) {
        return attributes.get(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        attributes.put(name, value);
    }

    @Override
    public void setStreams(InputStream i, OutputStream o) {
        if (i != null) {
            in = i;
        }
        if (o != null) {
            out = o;
        }
    }

    @Override
    public HttpPrincipal getPrincipal() {
        return null;
    }

    /**
     * Ends the exchange: the body's last chunk goes out. A handler that sent no headers leaves the client a
     * 500 (the JDK server would drop the connection, which a prober reads as a network error).
     */
    @Override
    public void close() {
        if (code == -1) {
            code = 500;
            finished = true;
            connection.respond(HttpConnection.text(500, "internal error on " + uri.getPath()
                    + ": the handler sent no response"), false);
            return;
        }
        try {
            body().close();
        } catch (IOException e) {
            connection.context().close();                       // the client is gone or stopped reading
        }
    }

    /**
     * The response body: buffered into chunks, each written before the next is accepted. The chunk's array is
     * handed to Netty as it is and filled again once Netty has released it: a 3.9 MB page copied chunk by
     * chunk was 3.9 MB of garbage per scrape on a heap of 64 MB (issue 23).
     */
    private final class Body extends OutputStream {

        private byte[] buffer = new byte[CHUNK];
        private int used;
        private boolean discard;
        private boolean closed;

        void discarding() {
            discard = true;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (closed) {
                throw new IOException("response body closed");
            }
            if (code == -1) {
                throw new IOException("response headers not sent");
            }
            if (discard) {
                return;
            }
            while (len > 0) {
                int n = Math.min(len, buffer.length - used);
                System.arraycopy(b, off, buffer, used, n);
                used += n;
                off += n;
                len -= n;
                if (used == buffer.length) {
                    flushChunk();
                }
            }
        }

        @Override
        public void flush() throws IOException {
            if (!discard && !closed && used > 0) {
                flushChunk();
            }
        }

        private void flushChunk() throws IOException {
            ByteBuf chunk = Unpooled.wrappedBuffer(buffer, 0, used);
            used = 0;
            try {
                await(connection.context().writeAndFlush(new DefaultHttpContent(chunk)));
            } finally {
                // Released: the transport copied it out (epoll and NIO copy a heap buffer when it is written).
                // Otherwise (a write that timed out or failed, a channel that keeps what it is given) the array
                // may still be read, and a new one takes its place.
                if (chunk.refCnt() != 0) {
                    buffer = new byte[CHUNK];
                }
            }
        }

        void await(ChannelFuture write) throws IOException {
            if (!write.awaitUninterruptibly(writeTimeoutMillis, TimeUnit.MILLISECONDS)) {
                connection.stats().cutAtWriteTimeout.increment();
                connection.context().close();
                throw new ClientGone("client took no response bytes for " + writeTimeoutMillis + " ms", null);
            }
            if (!write.isSuccess()) {
                throw new ClientGone("cannot write the response: " + write.cause(), write.cause());
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            if (finished || code == -1) {
                return;
            }
            finished = true;
            ChannelFuture last;
            if (used > 0) {
                last = connection.context().writeAndFlush(new io.netty.handler.codec.http.DefaultLastHttpContent(
                        Unpooled.wrappedBuffer(buffer, 0, used)));
                used = 0;
            } else {
                last = connection.context().writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            }
            last.addListener(f -> connection.done(keepAlive && f.isSuccess()));
            await(last);
        }
    }

    /**
     * The client went away or stopped reading while its response was written (a scraper's timeout, {@code curl | head}):
     * the client's doing, not the endpoint's failure.
     */
    static final class ClientGone extends IOException {
        ClientGone(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
