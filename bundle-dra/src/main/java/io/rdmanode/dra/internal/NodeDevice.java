// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.discovery.CharDevice;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A device this driver can hand out: a PCI function (a whole HCA's PF or an SR-IOV VF) with its RDMA device
 * visible on the host, and the character devices a container needs: {@code uverbsN}, each port's {@code umadN}
 * and {@code issmN} where present, and the host's {@code rdma_cm}, named relative to {@code /dev}.
 */
record NodeDevice(String name, PciFunction function, RdmaDevice rdma, List<DeviceFile> files) {

    NodeDevice {
        files = List.copyOf(files);
    }

    PciAddress address() {
        return function.address();
    }

    /** The devices of {@code host} by {@link DeviceNames name}, sorted by PCI address. */
    static Map<String, NodeDevice> of(HostSnapshot host) {
        Map<String, NodeDevice> out = new LinkedHashMap<>();
        host.pciFunctions().stream().sorted((a, b) -> a.address().compareTo(b.address())).forEach(f -> {
            Optional<RdmaDevice> rdma = f.rdmaDevices().stream().map(host::device).flatMap(Optional::stream)
                    .findFirst();
            rdma.ifPresent(d -> out.put(DeviceNames.of(f.address()),
                    new NodeDevice(DeviceNames.of(f.address()), f, d, files(d, host.rdmaCm()))));
        });
        return out;
    }

    private static List<DeviceFile> files(RdmaDevice d, CharDevice rdmaCm) {
        List<DeviceFile> files = new ArrayList<>();
        files.add(file(d.uverbs()));
        for (RdmaPort p : d.ports()) {
            files.add(file(p.umad()));
            if (p.issm().present()) {
                files.add(file(p.issm()));
            }
        }
        files.add(file(rdmaCm));
        return files;
    }

    /** The RDMA character devices all live in {@code <devRoot>/infiniband/}. */
    private static DeviceFile file(CharDevice c) {
        return new DeviceFile(c.kind(), "infiniband/" + c.path().getFileName(), c.path(), c.absentReason());
    }

    /** Why a container could not use the device now, when it could not. */
    Optional<String> problem() {
        return files.stream().filter(f -> f.kind().equals("uverbs") && !f.present()).findFirst()
                .map(f -> f.agentPath() + " is absent: " + f.absentReason().orElse(""));
    }
}
