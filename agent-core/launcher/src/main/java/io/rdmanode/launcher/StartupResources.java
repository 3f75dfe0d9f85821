// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the agent must get before anything starts, checked up front so a start that cannot work fails at once
 * with exit {@link ExitCode#RESOURCE_UNAVAILABLE} and one line (what, where, which key or variable changes it),
 * instead of an agent that runs on without its health endpoint (kubelet would then restart it forever, and an
 * operator would have to find the cause in a stack trace). The HTTP port is tried by binding it and letting go:
 * a port another process holds is the common case; a race with a process binding it in the next millisecond is
 * still reported by the health bundle.
 */
final class StartupResources {

    static final String HTTP_PORT_KEY = "agent.http.port";
    static final String HTTP_HOST_KEY = "agent.http.host";
    static final String HTTP_PORT_VARIABLE = "RDMA_AGENT_HTTP_PORT";
    static final int DEFAULT_PORT = 9456;
    static final String DEFAULT_HOST = "127.0.0.1";
    /** {@code io.rdmanode.agent.Handover.HTTP}. */
    static final String HTTP_DOOR = "http";

    private StartupResources() {
    }

    /**
     * The first resource the agent cannot get, as the line to print; empty when all are there. The HTTP port is
     * not tried when the predecessor serves the endpoint at the same address: this instance takes it over.
     */
    static Optional<String> firstUnavailable(Path configFile, Config resolved, RuntimeSettings settings,
                                             Optional<PredecessorProbe.Predecessor> predecessor) {
        Optional<String> stateDir = stateDirectory(configFile, settings.stateDir());
        if (stateDir.isPresent()) {
            return stateDir;
        }
        Optional<String> served = predecessor.map(p -> p.doors().get(HTTP_DOOR));
        if (served.isPresent() && served.get().equals(httpAddress(resolved))) {
            return Optional.empty();
        }
        return httpPort(configFile, resolved);
    }

    /** The endpoint's address as the health bundle offers it at a handover: {@code host:port}. */
    static String httpAddress(Config resolved) {
        try {
            String host = resolved.hasPath(HTTP_HOST_KEY) ? resolved.getString(HTTP_HOST_KEY) : DEFAULT_HOST;
            int port = resolved.hasPath(HTTP_PORT_KEY) ? resolved.getInt(HTTP_PORT_KEY) : DEFAULT_PORT;
            return host + ":" + port;
        } catch (ConfigException e) {
            return "";
        }
    }

    static Optional<String> stateDirectory(Path configFile, Path stateDir) {
        try {
            Files.createDirectories(stateDir);
            Path probe = Files.createTempFile(stateDir, ".write-check", "");
            Files.delete(probe);
            return Optional.empty();
        } catch (IOException | SecurityException e) {
            return Optional.of("cannot use the state directory " + stateDir + ": " + reason(e)
                    + "; change agent.runtime.stateDir in " + configFile
                    + " (agent.conf reads STATE_DIRECTORY, which systemd's StateDirectory= sets)");
        }
    }

    static Optional<String> httpPort(Path configFile, Config resolved) {
        String host;
        int port;
        try {
            host = resolved.hasPath(HTTP_HOST_KEY) ? resolved.getString(HTTP_HOST_KEY) : DEFAULT_HOST;
            port = resolved.hasPath(HTTP_PORT_KEY) ? resolved.getInt(HTTP_PORT_KEY) : DEFAULT_PORT;
        } catch (ConfigException e) {
            return Optional.empty(); // the config bundle refuses it with file:line and the accepted range
        }
        if (port <= 0 || port > 65535) {
            return Optional.empty(); // 0 = any free port; out of range is the config check's to refuse
        }
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true); // as the endpoint binds: a previous instance's TIME_WAIT is no conflict
            socket.bind(new InetSocketAddress(InetAddress.getByName(host), port));
            return Optional.empty();
        } catch (IOException | SecurityException e) {
            return Optional.of("cannot bind the HTTP endpoint (/healthz, /readyz, /status, /metrics) to " + host + ":"
                    + port + ": " + reason(e) + "; another process may hold it (ss -ltnp 'sport = :" + port
                    + "' names it); change " + HTTP_PORT_KEY + " in " + configFile + " or set " + HTTP_PORT_VARIABLE
                    + " (0 picks a free port)");
        }
    }

    private static String reason(Exception e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }
}
