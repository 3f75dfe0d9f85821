// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.discovery.CharDevice;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The RDMA device of a VF and its character device nodes (host paths): {@code uverbsN}, then {@code umadN}
 * and {@code issmN} of each port where present. What Allocate hands out, and what the ledger remembers while
 * the device sits in a pod's network namespace.
 *
 * @param nodes kind ({@code uverbs}, {@code umad}, {@code issm}) and host path, in that order
 */
public record VfRdma(String device, List<Node> nodes) {

    public record Node(String kind, Path hostPath) { }

    public VfRdma {
        nodes = List.copyOf(nodes);
    }

    /** The RDMA device named {@code name} on {@code host} with its present nodes; empty when not on the host. */
    static Optional<VfRdma> on(HostIndex host, String name) {
        return host.device(name).map(VfRdma::of);
    }

    static VfRdma of(RdmaDevice d) {
        List<Node> nodes = new ArrayList<>();
        add(d.uverbs(), nodes);
        for (RdmaPort p : d.ports()) {
            add(p.umad(), nodes);
            add(p.issm(), nodes);
        }
        return new VfRdma(d.name(), nodes);
    }

    private static void add(CharDevice c, List<Node> nodes) {
        if (c.present()) {
            nodes.add(new Node(c.kind(), c.path()));
        }
    }

    public Optional<Path> node(String kind) {
        return nodes.stream().filter(n -> n.kind().equals(kind)).map(Node::hostPath).findFirst();
    }
}
