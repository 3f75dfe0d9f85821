// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.agent.ConfigValidator;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.annotation.bundle.Header;

/**
 * The device-plugin host's configuration check ({@code kubelet { ... }}): the registration mode, absolute
 * directories whose plugin sockets fit {@code sun_path} in bytes ({@link ResourceNames#socketDirProblem}, what
 * the host reports on activation), and kubelet socket and pod-resources socket paths that fit too (the latter
 * absolute). {@link KubeletHostComponent} calls
 * {@link #problems} on activation and refuses what it returns.
 */
@Header(name = ConfigValidator.HEADER, value = "${@class}")
public final class KubeletHostValidator implements ConfigValidator {

    public KubeletHostValidator() {
    }

    @Override
    public List<Refusal> validate(Proposal proposal) {
        Map<String, Object> properties = proposal.configurations().get(KubeletHostComponent.PID);
        List<Refusal> out = new ArrayList<>();
        if (properties != null) {
            problems(properties).forEach((property, message) ->
                    out.add(new Refusal(KubeletHostComponent.PID, property, message)));
        }
        return out;
    }

    /** Property to what is wrong with it; empty when the host accepts the configuration. */
    static Map<String, String> problems(Map<String, Object> properties) {
        Map<String, String> out = new LinkedHashMap<>();
        String registration = String.valueOf(properties.getOrDefault("registration", "auto"));
        if (!List.of("auto", "classic", "watcher").contains(registration)) {
            out.put("registration", "registration = \"" + registration + "\" is not one of auto, classic, watcher");
        }
        String pluginDir = String.valueOf(properties.getOrDefault("pluginDir", "/var/lib/kubelet/device-plugins"));
        directory("pluginDir", pluginDir, out);
        directory("pluginsRegistryDir",
                String.valueOf(properties.getOrDefault("pluginsRegistryDir", "/var/lib/kubelet/plugins_registry")), out);
        String socket = String.valueOf(properties.getOrDefault("kubeletSocket", "kubelet.sock"));
        if (!out.containsKey("pluginDir")) {
            try {
                Path full = Path.of(pluginDir).resolve(socket);
                int bytes = full.toString().getBytes(StandardCharsets.UTF_8).length;
                if (socket.isEmpty() || bytes > ResourceNames.SUN_PATH_MAX) {
                    out.put("kubeletSocket", "kubeletSocket '" + full + "' is " + bytes + " bytes long; a Unix"
                            + " socket path has 1 to " + ResourceNames.SUN_PATH_MAX + " bytes");
                }
            } catch (InvalidPathException e) {
                out.put("kubeletSocket", "kubeletSocket '" + socket + "' is not a path: " + e.getReason());
            }
        }
        podResourcesSocket(String.valueOf(properties.getOrDefault("podResourcesSocket",
                PodResourcesSettings.DEFAULT_SOCKET)), out);
        return out;
    }

    private static void podResourcesSocket(String value, Map<String, String> out) {
        try {
            Path socket = Path.of(value);
            int bytes = value.getBytes(StandardCharsets.UTF_8).length;
            if (!socket.isAbsolute()) {
                out.put("podResourcesSocket", "podResourcesSocket '" + value + "' must be an absolute path, e.g. "
                        + PodResourcesSettings.DEFAULT_SOCKET);
            } else if (bytes > ResourceNames.SUN_PATH_MAX) {
                out.put("podResourcesSocket", "podResourcesSocket '" + value + "' is " + bytes + " bytes long; a"
                        + " Unix socket path has 1 to " + ResourceNames.SUN_PATH_MAX + " bytes");
            }
        } catch (InvalidPathException e) {
            out.put("podResourcesSocket", "podResourcesSocket '" + value + "' is not a path: " + e.getReason());
        }
    }

    private static void directory(String property, String value, Map<String, String> out) {
        try {
            Path dir = Path.of(value);
            if (!dir.isAbsolute()) {
                out.put(property, property + " '" + value + "' must be an absolute path, e.g. /var/lib/kubelet/"
                        + "device-plugins");
                return;
            }
            ResourceNames.socketDirProblem(dir).ifPresent(p -> out.put(property, property + ": " + p));
        } catch (InvalidPathException e) {
            out.put(property, property + " '" + value + "' is not a path: " + e.getReason());
        }
    }
}
