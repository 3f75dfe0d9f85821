// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import io.rdmanode.agent.Ttar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * What the handover tests run the distribution on: a copy of it, a state directory holding the recorded demo host
 * and a device-plugins directory for the kubelet double, and demo.conf with every path there and a free HTTP port
 * ({@code demo}, also written to {@code config}). Short paths under /tmp: Unix socket paths hold 107 bytes.
 */
record HandoverNode(Path dir, Path home, Path state, Path pluginDir, int port, String demo, Path config)
        implements AutoCloseable {

    static HandoverNode prepare(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(Path.of("/tmp"), prefix);
        Path home = dir.resolve("home");
        AgentProcessIT.copyTree(AgentProcessIT.DIST, home);
        Path state = Files.createDirectories(dir.resolve("s"));
        Ttar.unpack(home.resolve("config/demo-host/cx5-roce-sriov.ttar"), state.resolve("host"));
        Path pluginDir = Files.createDirectories(state.resolve("device-plugins"));
        int port = HandoverIT.freePort();
        String demo = Files.readString(home.resolve("config/demo.conf"))
                .replace("${rdma.agent.stateDir}", state.toString())
                .replace("port = ${?RDMA_AGENT_HTTP_PORT}", "port = " + port);
        Path config = dir.resolve("agent.conf");
        Files.writeString(config, demo);
        return new HandoverNode(dir, home, state, pluginDir, port, demo, config);
    }

    /** Removes everything under {@link #dir}. */
    @Override
    public void close() throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
