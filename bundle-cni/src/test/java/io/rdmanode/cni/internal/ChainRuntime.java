// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A container runtime's CNI side, for a network configuration list (a chain), with libcni's semantics: each
 * plugin found by its {@code type} in CNI_PATH and exec'd with env + stdin; ADD runs the plugins in order,
 * each getting the previous result as {@code prevResult}, and stops at the first failure; DEL runs every plugin
 * in reverse order with the cached ADD result and stops at the first failure (which leaves the earlier plugins'
 * resources in place: why the rdma plugin's DEL must not fail when it has nothing to release).
 */
final class ChainRuntime {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One invocation: which plugin, its exit and stdout. */
    record Step(String type, Netns.Exec exec) {
    }

    /** What a command did: the steps run, and the failing one if any. */
    record Outcome(List<Step> steps) {
        Optional<Step> failure() {
            return steps.stream().filter(s -> s.exec().exit() != 0).findFirst();
        }

        boolean ok() {
            return failure().isEmpty();
        }
    }

    private final String cniVersion;
    private final String network;
    private final List<ObjectNode> plugins;
    private final List<Path> cniPath;
    private final Map<String, JsonNode> cachedResults = new HashMap<>();

    ChainRuntime(String cniVersion, String network, List<ObjectNode> plugins, List<Path> cniPath) {
        this.cniVersion = cniVersion;
        this.network = network;
        this.plugins = plugins;
        this.cniPath = cniPath;
    }

    Outcome add(String containerId, String ifname, String netns) throws IOException, InterruptedException {
        List<Step> steps = new ArrayList<>();
        JsonNode prev = null;
        for (ObjectNode plugin : plugins) {
            Step step = run(plugin, "ADD", containerId, ifname, netns, prev);
            steps.add(step);
            if (step.exec().exit() != 0) {
                return new Outcome(steps);
            }
            prev = JSON.readTree(step.exec().stdout());
        }
        cachedResults.put(containerId + "/" + ifname, prev);
        return new Outcome(steps);
    }

    Outcome del(String containerId, String ifname, String netns) throws IOException, InterruptedException {
        List<Step> steps = new ArrayList<>();
        JsonNode cached = cachedResults.get(containerId + "/" + ifname);
        for (int i = plugins.size() - 1; i >= 0; i--) {
            Step step = run(plugins.get(i), "DEL", containerId, ifname, netns, cached);
            steps.add(step);
            if (step.exec().exit() != 0) {
                return new Outcome(steps);
            }
        }
        cachedResults.remove(containerId + "/" + ifname);
        return new Outcome(steps);
    }

    private Step run(ObjectNode plugin, String command, String containerId, String ifname, String netns,
                     JsonNode prev) throws IOException, InterruptedException {
        ObjectNode conf = plugin.deepCopy();
        conf.put("cniVersion", cniVersion).put("name", network);
        if (prev != null) {
            conf.set("prevResult", prev);
        }
        String type = plugin.path("type").asText();
        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", containerId);
        env.put("CNI_IFNAME", ifname);
        env.put("CNI_NETNS", netns);
        env.put("CNI_PATH", String.join(":", cniPath.stream().map(Path::toString).toList()));
        env.put("CNI_ARGS", "IgnoreUnknown=1;K8S_POD_NAMESPACE=team-a;K8S_POD_NAME=trainer-" + containerId);
        return new Step(type, Netns.exec(find(type), env, conf.toString()));
    }

    private Path find(String type) {
        return cniPath.stream().map(d -> d.resolve(type)).filter(Files::isExecutable).findFirst()
                .orElseThrow(() -> new IllegalStateException("no CNI plugin " + type + " in " + cniPath));
    }
}
