// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.rdmanode.agent.ConfigValidator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.osgi.annotation.bundle.Header;

/**
 * The CNI component's own check of {@code cni { ... }}: what {@link CniComponent} would refuse or fail on. The
 * component runs the same check on activation ({@link #require}).
 */
@Header(name = ConfigValidator.HEADER, value = "${@class}")
public final class CniConfigCheck implements ConfigValidator {

    /** The longest socket path the client's slot holds: {@link ClientInstaller#SLOT} minus marker and NUL. */
    static final int MAX_SOCKET_BYTES = ClientInstaller.SLOT - ClientInstaller.SOCKET_MARKER.length() - 1;
    /** The longest state dir the client's slot holds (the executable reads it for a DEL while the agent is down). */
    static final int MAX_STATE_DIR_BYTES = ClientInstaller.STATE_DIR_SLOT - ClientInstaller.STATE_DIR_MARKER.length()
            - 1;

    @Override
    public List<Refusal> validate(Proposal proposal) {
        Map<String, Object> properties = proposal.configurations().get(CniComponent.PID);
        if (properties == null) {
            return List.of();
        }
        List<Refusal> refusals = new ArrayList<>();
        for (String key : List.of("socket", "binDir", "stateDir")) {
            if (properties.get(key) instanceof String value) {
                String problem = key.equals("socket") ? socketProblem(value)
                        : key.equals("stateDir") ? stateDirProblem(value) : pathProblem(value);
                if (problem != null) {
                    refusals.add(new Refusal(CniComponent.PID, key, problem));
                }
            }
        }
        return refusals;
    }

    /** Throws what {@link #validate} would refuse in {@code config}: the component's activation check. */
    static void require(CniComponent.Config config) {
        List<String> problems = new ArrayList<>();
        add(problems, "socket", socketProblem(config.socket()));
        add(problems, "binDir", pathProblem(config.binDir()));
        add(problems, "stateDir", stateDirProblem(config.stateDir()));
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("cni: " + String.join("; ", problems));
        }
    }

    private static void add(List<String> problems, String key, String problem) {
        if (problem != null) {
            problems.add(key + ": " + problem);
        }
    }

    static String socketProblem(String socket) {
        String path = pathProblem(socket);
        if (path != null) {
            return path;
        }
        int bytes = socket.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_SOCKET_BYTES) {
            return "'" + socket + "' is " + bytes + " bytes; a CNI socket path is at most " + MAX_SOCKET_BYTES
                    + " bytes (the rdma executable's socket slot; a Unix socket path at most 107)";
        }
        if (socket.endsWith("/")) {
            return "'" + socket + "' names a directory; give the socket file, e.g. /run/rdma-node-agent/cni.sock";
        }
        return null;
    }

    static String stateDirProblem(String dir) {
        String path = pathProblem(dir);
        if (path != null) {
            return path;
        }
        int bytes = dir.getBytes(StandardCharsets.UTF_8).length;
        return bytes > MAX_STATE_DIR_BYTES ? "'" + dir + "' is " + bytes + " bytes; the CNI state dir is at most "
                + MAX_STATE_DIR_BYTES + " bytes (the rdma executable's state dir slot)" : null;
    }

    static String pathProblem(String path) {
        if (path.isBlank()) {
            return "empty; an absolute path is expected, e.g. /run/rdma-node-agent/cni.sock";
        }
        if (!path.startsWith("/")) {
            return "'" + path + "' is relative; an absolute path (starting with /) is expected";
        }
        if (path.indexOf('\0') >= 0) {
            return "'" + path + "' contains a NUL character; a path cannot";
        }
        for (String segment : path.split("/")) {
            if (segment.equals("..")) {
                return "'" + path + "' contains '..'; an absolute path without '..' is expected";
            }
        }
        return null;
    }
}
