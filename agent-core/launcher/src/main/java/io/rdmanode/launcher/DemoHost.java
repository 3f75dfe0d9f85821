// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The demo's private world: a temporary state directory for the framework cache, sockets and the HTTP URL
 * file. {@code config/demo.conf} points every path of the agent into it through {@code ${rdma.agent.stateDir}}.
 */
final class DemoHost {

    private DemoHost() {
    }

    static Path prepare(Path home) throws IOException {
        Path dir = Files.createTempDirectory("rdma-node-agent-demo-");
        Files.createDirectories(dir.resolve("device-plugins"));
        return dir;
    }
}
