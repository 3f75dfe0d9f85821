// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.util.converter.Converters;

/**
 * {@link MetricsEndpoint} served over real HTTP on 127.0.0.1 the way the health bundle serves a whiteboard
 * {@code HttpEndpoint} (a JDK {@link HttpServer} context on its path), with collectors bound as SCR would.
 * Records each request's {@code Accept} header.
 */
public final class ServedEndpoint implements AutoCloseable {

    private final MetricsEndpoint endpoint;
    private final HttpServer server;
    private final List<String> accepts = new CopyOnWriteArrayList<>();

    public ServedEndpoint(Map<String, Object> config) throws IOException {
        endpoint = new MetricsEndpoint(Converters.standardConverter().convert(config).to(MetricsConfig.class));
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext(endpoint.path(), exchange -> {
            accepts.add(String.valueOf(exchange.getRequestHeaders().getFirst("Accept")));
            try (exchange) {
                endpoint.handle(exchange);
            }
        });
        server.start();
    }

    public void bind(String name, MultiCollector collector) {
        endpoint.bindCollector(collector, Map.of("component.name", name));
    }

    public void unbind(MultiCollector collector) {
        endpoint.unbindCollector(collector);
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + endpoint.path());
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public List<String> accepts() {
        return accepts;
    }

    @Override
    public void close() {
        server.stop(0);
        endpoint.stop();
    }
}
