// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.rdmanode.netlink.Netlink;
import java.io.IOException;
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

    /** Overrides of the component's configuration for the next {@link #start()}. */
    Map<String, Object> settings = Map.of();

    TestAgent start() throws IOException {
        component = new CniComponent(config(root, settings), resolver(), kernel, Netlink.namespaces());
        return this;
    }

    Path socket() {
        return root.resolve("cni.sock");
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
        return config(root, Map.of());
    }

    /**
     * The component's configuration for an agent under {@code root}: bin dir, socket and state dir there, every
     * other property its annotation default unless {@code overrides} has it (by method name).
     */
    static CniComponent.Config config(Path root, Map<String, Object> overrides) {
        Map<String, Object> values = new java.util.HashMap<>(Map.of("binDir", root.resolve("bin").toString(),
                "socket", root.resolve("cni.sock").toString(), "stateDir", root.resolve("state").toString()));
        values.putAll(overrides);
        return (CniComponent.Config) java.lang.reflect.Proxy.newProxyInstance(
                CniComponent.Config.class.getClassLoader(), new Class<?>[] {CniComponent.Config.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "annotationType" -> CniComponent.Config.class;
                    case "toString" -> "Config" + values;
                    case "hashCode" -> values.hashCode();
                    case "equals" -> proxy == args[0];
                    default -> values.containsKey(method.getName()) ? values.get(method.getName())
                            : method.getDefaultValue();
                });
    }

    @Override
    public void close() throws IOException {
        stop();
        try (var walk = Files.walk(root)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
