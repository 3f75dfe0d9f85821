// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import io.rdmanode.agent.Ttar;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A node for the DRA driver's distribution tests: a copy of the distribution without a DRA jar in {@code bundles/}
 * (the driver is switched on in the configuration and installed from {@code optional/}, as an operator enables
 * it), the recorded demo host unpacked into the state directory, the kubelet double's device-plugin directory, and
 * the driver's directories (plugins, registry, CDI, checkpoint) with a kubeconfig naming an API server. Everything
 * lives in a short directory under {@code /tmp} (Unix socket paths have 107 usable bytes), removed on
 * {@link #close()}.
 */
final class DraNode implements AutoCloseable {

    static final String DRIVER = "rdma.rdmanode.io";
    static final String NODE = "node-a";

    final Path dir;
    final Path home;
    final Path state;
    final Path pluginDir;
    /** Where the driver's DRA sockets go: {@code <pluginsDir>/<driver>}. */
    final Path draDir;
    final Path registry;
    final Path cdi;
    final Path config;
    final int port;

    /** @param apiServer the URL in the kubeconfig (a mock API server's, or a closed port) */
    DraNode(String prefix, String apiServer) throws IOException {
        dir = Files.createTempDirectory(Path.of("/tmp"), prefix);
        home = dir.resolve("home");
        AgentProcessIT.copyTree(AgentProcessIT.DIST, home);
        Files.deleteIfExists(home.resolve("bundles/rdma-agent-dra.jar"));     // a stale build's copy
        state = Files.createDirectories(dir.resolve("s"));
        Ttar.unpack(home.resolve("config/demo-host/cx5-roce-sriov.ttar"), state.resolve("host"));
        pluginDir = Files.createDirectories(state.resolve("device-plugins"));
        draDir = dir.resolve("plugins").resolve(DRIVER);
        registry = Files.createDirectories(dir.resolve("reg"));
        cdi = dir.resolve("cdi");
        config = dir.resolve("agent.conf");
        Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
                users: [{name: u, user: {token: t}}]
                contexts: [{name: x, context: {cluster: c, user: u}}]
                current-context: x
                """.formatted(apiServer));
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
    }

    /**
     * Writes the configuration: the demo's, on this node's state directory and port, with the driver switched on
     * and its {@code dra} section enabled; {@code draLines} are added inside that section ({@code pools = [...]}).
     */
    Path writeConfig(String draLines) throws IOException {
        return Files.writeString(config, Files.readString(home.resolve("config/demo.conf"))
                .replace("${rdma.agent.stateDir}", state.toString())
                .replace("port = ${?RDMA_AGENT_HTTP_PORT}", "port = " + port)
                + "\nagent.bundles.dra.enabled = true\ndra {\n  enabled = true\n  nodeName = " + NODE
                + "\n  pluginsDir = \"" + dir.resolve("plugins") + "\"\n  registryDir = \"" + registry
                + "\"\n  cdiDir = \"" + cdi + "\"\n  stateDir = \"" + dir.resolve("dra-state")
                + "\"\n  kubeconfig = \"" + dir.resolve("kubeconfig") + "\"\n" + draLines + "}\n");
    }

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    @Override
    public void close() throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
