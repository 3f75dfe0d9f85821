// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.rdmanode.netlink.Netlink;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The CNI component as the agent runs it (real socket, real install into a bin dir, real namespaces), with
 * the fake RDMA kernel and a fixed PCI-to-RDMA map standing in for hardware. Paths under a short /tmp dir.
 */
final class TestAgent implements AutoCloseable {

    static final Map<String, List<String>> HOST = Map.of("0000:3b:02.1", List.of("mlx5_7"), "0000:3b:02.2",
            List.of("mlx5_8"), "0000:3b:00.0", List.of());

    final Path root;
    final FakeRdmaKernel kernel = new FakeRdmaKernel("mlx5_7", "mlx5_8");
    volatile String notReady;
    CniComponent component;

    TestAgent() throws IOException {
        root = Files.createTempDirectory(Path.of("/tmp"), "rdt-cni-");
    }

    Path binDir() {
        return root.resolve("bin");
    }

    Path client() {
        return binDir().resolve("rdma");
    }

    Path stateDir() {
        return root.resolve("state");
    }

    TestAgent start() throws IOException {
        component = new CniComponent(config(root), resolver(), kernel, Netlink.namespaces());
        return this;
    }

    void stop() {
        if (component != null) {
            component.stop();
            component = null;
        }
    }

    DeviceResolver resolver() {
        return new DeviceResolver() {
            @Override
            public Optional<List<String>> rdmaDevices(String pciAddress) {
                return Optional.ofNullable(HOST.get(pciAddress));
            }

            @Override
            public Optional<String> notReady() {
                return Optional.ofNullable(notReady);
            }
        };
    }

    static CniComponent.Config config(Path root) {
        return new CniComponent.Config() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return CniComponent.Config.class;
            }

            @Override
            public String binDir() {
                return root.resolve("bin").toString();
            }

            @Override
            public String socket() {
                return root.resolve("cni.sock").toString();
            }

            @Override
            public String stateDir() {
                return root.resolve("state").toString();
            }

            @Override
            public boolean installClient() {
                return true;
            }
        };
    }

    @Override
    public void close() throws IOException {
        stop();
        try (var walk = Files.walk(root)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
