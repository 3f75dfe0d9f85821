// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One client connection, after the HTTP codec; every method runs on the connection's event loop unless it says
 * otherwise. It enforces the time bounds: a complete request head within the header timeout (from connecting,
 * or from the first byte of a kept-alive connection's next request), and the idle timeout between requests;
 * either closes the connection. One request is handled at a time: requests pipelined behind it wait (reading
 * stops meanwhile), at most {@value #MAX_PIPELINED} of them: past that the ones held are answered and then the
 * connection is closed, the rest unanswered (a client sends them again on a new connection). Responses
 * therefore go out in request order, and a client that does not read its answers stops being read.
 */
final class HttpConnection extends ChannelInboundHandlerAdapter {

    /** What the server does with one request head; called on the event loop, must not block. */
    interface Router {
        void route(HttpConnection connection, HttpRequest request);

        /** False once a successor serves the endpoint: each response then closes its connection. */
        default boolean keepsConnections() {
            return true;
        }
    }

    static final int MAX_PIPELINED = 8;

    private enum Waiting { HEAD, IDLE, NOTHING }

    private final Router router;
    private final HttpSettings settings;
    private final HttpServerStats stats;
    private final ArrayDeque<HttpRequest> pipelined = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private Waiting waiting = Waiting.HEAD;
    private ScheduledFuture<?> timer;
    private boolean busy;
    /** More were pipelined than held: close once the held ones are answered. */
    private boolean overflowed;

    HttpConnection(Router router, HttpSettings settings, HttpServerStats stats) {
        this.router = router;
        this.settings = settings;
        this.stats = stats;
    }

    /** Before the codec: bytes arriving on an idle kept-alive connection start the next head's clock. */
    ChannelInboundHandlerAdapter rawBytesWatcher() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext raw, Object msg) {
                if (waiting == Waiting.IDLE) {
                    await(Waiting.HEAD);
                }
                raw.fireChannelRead(msg);
            }
        };
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.ctx = context;
        await(Waiting.HEAD);
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        try {
            if (msg instanceof HttpRequest request) {
                if (!busy) {
                    start(request);
                } else if (pipelined.size() < MAX_PIPELINED) {
                    pipelined.add(request);
                    context.channel().config().setAutoRead(false);
                } else if (!overflowed) {
                    // Closing at once dropped the request in flight and every one held, with nothing said: the
                    // ones held are answered first.
                    overflowed = true;
                    stats.pipelineOverflows.increment();
                }
            }
        } finally {
            ReferenceCountUtil.release(msg);                    // bodies are never read: the head is all we use
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        cancelTimer();
        context.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        context.close();                                        // a reset or a broken pipe: nothing to answer
    }

    private void start(HttpRequest request) {
        busy = true;
        await(Waiting.NOTHING);
        router.route(this, request);
    }

    /** The response to the current request is fully written (any thread): next request, idle wait, or close. */
    void done(boolean keepAlive) {
        if (!ctx.executor().inEventLoop()) {
            ctx.executor().execute(() -> done(keepAlive));
            return;
        }
        busy = false;
        if (!keepAlive || !ctx.channel().isActive()) {
            ctx.close();
        } else if (!pipelined.isEmpty()) {
            start(pipelined.poll());
        } else if (overflowed) {
            ctx.close();
        } else {
            ctx.channel().config().setAutoRead(true);
            await(Waiting.IDLE);
        }
    }

    /** Writes a whole response (any thread) and then goes on as {@link #done} says. */
    void respond(FullHttpResponse response, boolean keepAlive) {
        boolean keep = keepAlive && router.keepsConnections();
        HttpUtil.setKeepAlive(response, keep);
        ctx.writeAndFlush(response).addListener(f -> done(keep && f.isSuccess()));
    }

    /** A one-line text answer (any thread). */
    void respond(int code, String line, boolean keepAlive) {
        respond(text(code, line), keepAlive);
    }

    static FullHttpResponse text(int code, String line) {
        byte[] body = (line + "\n").getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(code),
                Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HealthResponses.TEXT)
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        return response;
    }

    ChannelHandlerContext context() {
        return ctx;
    }

    HttpServerStats stats() {
        return stats;
    }

    private void await(Waiting next) {
        cancelTimer();
        waiting = next;
        long millis = switch (next) {
            case HEAD -> settings.headerTimeout().toMillis();
            case IDLE -> settings.idleTimeout().toMillis();
            case NOTHING -> -1;
        };
        if (millis >= 0) {
            timer = ctx.executor().schedule(() -> expire(next), millis, TimeUnit.MILLISECONDS);
        }
    }

    private void expire(Waiting what) {
        if (waiting != what || !ctx.channel().isActive()) {
            return;
        }
        if (what == Waiting.HEAD) {
            stats.cutAtHeaderTimeout.increment();
            stats.refusals.warn("header-timeout", "closed http connection(s) that sent no complete"
                    + " request head within {} ms, latest from {}", settings.headerTimeout().toMillis(),
                    ctx.channel().remoteAddress());
        } else {
            stats.closedIdle.increment();
        }
        ctx.close();
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
