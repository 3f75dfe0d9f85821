// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import io.rdmanode.discovery.CharDevice;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.Problem;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The {@code discovery} member of {@code /status}: a topology summary built from a snapshot. */
public final class StatusView {

    private StatusView() {
    }

    public static Map<String, Object> of(HostSnapshot s, String eventsState) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("revision", s.revision());
        m.put("takenAt", s.takenAt().toString());
        m.put("backend", s.backend().backend());
        m.put("backendAvailable", s.backend().available());
        s.backend().unavailableReason().ifPresent(r -> m.put("backendUnavailableReason", r));
        m.put("events", eventsState);
        m.put("netnsMode", s.netnsMode().mode().name().toLowerCase(java.util.Locale.ROOT));
        s.netnsMode().reason().ifPresent(r -> m.put("netnsModeReason", r));
        m.put("rdmaCm", charDevice(s.rdmaCm()));
        List<Object> devices = new ArrayList<>();
        for (RdmaDevice d : s.devices()) {
            Map<String, Object> dm = new LinkedHashMap<>();
            dm.put("name", d.name());
            d.pciFunction().ifPresent(p -> dm.put("pci", p.toString()));
            d.parentNetdev().ifPresent(p -> dm.put("parent", p));
            d.parentPciFunction().ifPresent(p -> dm.put("parentPci", p.toString()));
            dm.put("netDevices", d.netDevices());
            d.fwVersion().ifPresent(f -> dm.put("fw", f));
            dm.put("uverbs", charDevice(d.uverbs()));
            List<Object> ports = new ArrayList<>();
            for (RdmaPort p : d.ports()) {
                Map<String, Object> pm = new LinkedHashMap<>();
                pm.put("port", p.number());
                pm.put("state", p.state().name());
                pm.put("physState", p.physState().name());
                pm.put("linkLayer", p.linkLayer().name());
                p.rate().ifPresent(r -> pm.put("rate", r));
                p.netdev().ifPresent(n -> pm.put("netdev", n));
                pm.put("gids", p.gids().size());
                pm.put("umad", charDevice(p.umad()));
                pm.put("issm", charDevice(p.issm()));
                ports.add(pm);
            }
            dm.put("ports", ports);
            devices.add(dm);
        }
        m.put("devices", devices);
        List<Object> pfs = new ArrayList<>();
        for (PciFunction f : s.pciFunctions()) {
            if (f.isVirtualFunction()) {
                continue;
            }
            Map<String, Object> fm = new LinkedHashMap<>();
            fm.put("pci", f.address().toString());
            fm.put("id", f.vendor() + ":" + f.device());
            f.driver().ifPresent(dr -> fm.put("driver", dr));
            f.numaNode().ifPresent(n -> fm.put("numaNode", n));
            f.sriov().ifPresent(sr -> {
                fm.put("numVfs", sr.numVfs());
                fm.put("totalVfs", sr.totalVfs());
            });
            fm.put("rdmaDevices", f.rdmaDevices());
            fm.put("netDevices", f.netDevices());
            pfs.add(fm);
        }
        m.put("physicalFunctions", pfs);
        m.put("netDevices", s.netDevices().size());
        m.put("problems", s.problems().stream().map(Problem::message).toList());
        return m;
    }

    private static String charDevice(CharDevice c) {
        String num = c.number().map(n -> " " + n).orElse("");
        return c.present() ? c.path() + num : "absent: " + c.absentReason().orElse("");
    }
}
