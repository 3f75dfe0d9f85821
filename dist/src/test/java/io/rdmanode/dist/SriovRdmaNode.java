// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import io.rdmanode.agent.Ttar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A node for the distribution's bound tests: a copy of the distribution, the recorded demo host unpacked, and a
 * configuration serving one SR-IOV pool ({@value #RESOURCE}, every RDMA VF) in a device-plugin directory of its
 * own, with the kubelet double's pod-resources socket. Everything lives in a short directory under {@code /tmp}
 * (Unix socket paths have 107 usable bytes), removed on {@link #close()}.
 */
final class SriovRdmaNode implements AutoCloseable {

    static final String RESOURCE = "rdma/sriov_rdma";

    final Path dir;
    final Path home;
    final Path host;
    final Path pluginDir;
    final Path podResources;
    final Path state;

    SriovRdmaNode(String prefix) throws IOException {
        dir = Files.createTempDirectory(Path.of("/tmp"), prefix);
        home = dir.resolve("home");
        AgentProcessIT.copyTree(AgentProcessIT.DIST, home);
        host = dir.resolve("host");
        Ttar.unpack(home.resolve("config/demo-host/cx5-roce-sriov.ttar"), host);
        pluginDir = Files.createDirectories(dir.resolve("dp"));
        podResources = dir.resolve("pr.sock");
        state = dir.resolve("state");
    }

    /** The configuration file: the pool, the recorded host, an HTTP port the kernel picks. */
    Path config() throws IOException {
        return Files.writeString(dir.resolve("agent.conf"), """
                agent {
                  runtime { stateDir = "%1$s", log.level = info }
                  http { host = "127.0.0.1", port = 0 }
                }
                discovery { backend = sysfs, sysfsRoot = "%2$s/sys", devRoot = "%2$s/dev" }
                kubelet { pluginDir = "%3$s", registration = classic, podResourcesSocket = "%4$s" }
                deviceplugin.common { hostDevRoot = "%2$s/dev", cdiSpecDirs = ["%1$s/cdi"] }
                deviceplugin.sriov.pools = [
                  { name = sriov_rdma, selectors { vendors = ["15b3"], isRdma = true } }
                ]
                """.formatted(state, host, pluginDir, podResources));
    }

    /** The pool's device-plugin socket, where kubelet calls Allocate. */
    Path socket() throws IOException {
        // Named per agent instance (rdma-node-agent.rdma_sriov_rdma.<instance>.sock): the newest one.
        try (Stream<Path> all = Files.list(pluginDir)) {
            return all.filter(p -> p.getFileName().toString().matches("rdma-node-agent\\.rdma_sriov_rdma\\.[0-9a-z]+\\.sock"))
                    .max(java.util.Comparator.comparing(p -> p.getFileName().toString()))
                    .orElseThrow(() -> new IOException("no sriov_rdma plugin socket in " + pluginDir));
        }
    }

    @Override
    public void close() throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
