// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which VFs have an RDMA device, remembered in the agent's state directory. In exclusive netns mode the RDMA
 * CNI moves a VF's RDMA device into the pod's namespace: the host then sees the VF's PCI function without its
 * {@code infiniband/} entry, and a plugin that only looks at sysfs (the peer, sriov-network-device-plugin
 * #565) drops the VF from its pool after a restart. With the ledger the VF stays, counted and healthy, and
 * Allocate still knows its character devices.
 *
 * <p>One line per VF: {@code <bdf> TAB <rdma device> TAB kind=path-under-/dev,...}. Written only when it changes, to a
 * temporary file then renamed over the old one (atomic on one file system). Thread-safe.
 */
public final class RdmaVfLedger {

    private final Path file;
    private Map<String, VfRdma> entries;

    /** Reads {@code file}; a missing file is an empty ledger, an unreadable line is skipped. */
    public RdmaVfLedger(Path file) {
        this.file = file;
        this.entries = read(file);
    }

    public Path file() {
        return file;
    }

    public synchronized Map<String, VfRdma> entries() {
        return Collections.unmodifiableMap(new TreeMap<>(entries));
    }

    public synchronized java.util.Optional<VfRdma> get(String vf) {
        return java.util.Optional.ofNullable(entries.get(vf));
    }

    /**
     * Replaces the ledger's content by {@code next} and writes it when it differs.
     *
     * @return true when it was written
     * @throws UncheckedIOException when the file cannot be written; the ledger keeps its previous content
     */
    public synchronized boolean replace(Map<String, VfRdma> next) {
        TreeMap<String, VfRdma> sorted = new TreeMap<>(next);
        if (sorted.equals(entries)) {
            return false;
        }
        write(sorted);
        entries = sorted;
        return true;
    }

    private void write(Map<String, VfRdma> content) {
        StringBuilder text = new StringBuilder();
        content.forEach((vf, rdma) -> {
            List<String> nodes = rdma.nodes().stream().map(n -> n.kind() + "=" + n.relativePath()).toList();
            text.append(vf).append('\t').append(rdma.device()).append('\t').append(String.join(",", nodes))
                    .append('\n');
        });
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.createDirectories(file.getParent());
            try {                                      // every failure (ENOSPC at write included) removes it
                Files.writeString(tmp, text, StandardCharsets.UTF_8);
                try {
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static Map<String, VfRdma> read(Path file) {
        Map<String, VfRdma> m = new TreeMap<>();
        List<String> lines;
        try {
            // Decoded leniently: a byte that is not UTF-8 (a damaged file) spoils its line, which is skipped below,
            // not the whole file. Strict decoding threw, and every SR-IOV pool failed to activate.
            lines = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines().toList();
        } catch (NoSuchFileException e) {
            return m;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        for (String line : lines) {
            String[] f = line.split("\t", -1);
            if (f.length != 3 || f[0].isBlank() || f[1].isBlank()) {
                continue;
            }
            List<VfRdma.Node> nodes = new ArrayList<>();
            for (String n : f[2].isEmpty() ? new String[0] : f[2].split(",")) {
                int eq = n.indexOf('=');
                if (eq > 0) {
                    nodes.add(new VfRdma.Node(n.substring(0, eq), n.substring(eq + 1)));
                }
            }
            m.put(f[0], new VfRdma(f[1], nodes));
        }
        return m;
    }
}
