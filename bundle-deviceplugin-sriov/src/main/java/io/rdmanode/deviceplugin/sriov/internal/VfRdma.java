// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.CandidateDevice;
import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.discovery.RdmaDevice;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The RDMA device of a VF and its character device nodes, relative to {@code /dev} ({@code uverbsN}, then
 * {@code umadN} and {@code issmN} of each port where present). What Allocate hands out, and what the ledger
 * remembers while the device sits in a pod's network namespace.
 *
 * @param nodes kind ({@code uverbs}, {@code umad}, {@code issm}) and path under {@code /dev}, in that order
 */
public record VfRdma(String device, List<Node> nodes) {

    /** @param relativePath under {@code /dev}, e.g. {@code infiniband/uverbs3} */
    public record Node(String kind, String relativePath) {
        DeviceFile file() {
            return new DeviceFile(kind, relativePath, Path.of("/dev").resolve(relativePath), Optional.empty());
        }
    }

    public VfRdma {
        nodes = List.copyOf(nodes);
    }

    /** The candidate's RDMA device with its present nodes; empty when it has none on the host. */
    static Optional<VfRdma> of(CandidateDevice c) {
        return c.rdma().map(RdmaDevice::name).map(name -> new VfRdma(name, c.deviceFiles().stream()
                .filter(DeviceFile::present).filter(f -> !f.kind().equals("vfio"))
                .map(f -> new Node(f.kind(), f.relativePath())).toList()));
    }

    public Optional<String> node(String kind) {
        return nodes.stream().filter(n -> n.kind().equals(kind)).map(Node::relativePath).findFirst();
    }
}
