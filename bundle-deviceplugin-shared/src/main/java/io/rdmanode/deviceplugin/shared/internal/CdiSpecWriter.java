// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Writes one pool's CDI spec ({@code <dir>/rdmanode.io-hca_<pool>.json}, CDI spec 0.5.0): one device named
 * after the pool whose container edits are the pool's character devices. Written atomically (temp file and
 * rename) so a runtime never reads half a file; the spec must be on disk before Allocate returns.
 */
final class CdiSpecWriter {

    static final String KIND = "rdmanode.io/hca";

    private final Path dir;
    private final String pool;
    private final Path file;
    /** The device nodes of the spec on disk: Allocate only checks these, the JSON is built when they change. */
    private List<DeviceNode> written;

    CdiSpecWriter(Path dir, String pool) {
        this.dir = dir;
        this.pool = pool;
        this.file = dir.resolve("rdmanode.io-hca_" + pool + ".json");
    }

    String qualifiedName() {
        return KIND + "=" + pool;
    }

    String annotationKey() {
        return "cdi.k8s.io/rdmanode.io_hca_" + pool;
    }

    Path file() {
        return file;
    }

    /** Writes the spec unless the same content is already on disk. */
    synchronized void write(List<DeviceNode> nodes) throws IOException {
        if (nodes.equals(written) && Files.exists(file)) {
            return;
        }
        String json = json(nodes);
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, ".rdmanode.io-hca_" + pool, ".tmp");
        try {
            Files.writeString(tmp, json, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        written = List.copyOf(nodes);
    }

    synchronized void delete() throws IOException {
        Files.deleteIfExists(file);
        written = null;
    }

    private String json(List<DeviceNode> nodes) {
        String deviceNodes = nodes.stream().map(n -> "{\"path\":" + quote(n.containerPath()) + ",\"hostPath\":"
                + quote(n.hostPath()) + ",\"permissions\":" + quote(n.permissions()) + "}")
                .collect(Collectors.joining(","));
        return "{\"cdiVersion\":\"0.5.0\",\"kind\":" + quote(KIND) + ",\"devices\":[{\"name\":" + quote(pool)
                + ",\"containerEdits\":{\"deviceNodes\":[" + deviceNodes + "]}}]}\n";
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
