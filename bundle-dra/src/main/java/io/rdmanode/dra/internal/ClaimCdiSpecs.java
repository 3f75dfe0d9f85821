// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One CDI spec file per prepared claim ({@code <cdiDir>/<driver>-rdma_<claim uid>.json}, CDI spec 0.5.0, the
 * format of the device-plugin pools' specs): a CDI device {@code <claim uid>-<device name>} per allocated device
 * with its character devices and environment. A spec per claim, not per device, so that Unprepare removes exactly
 * what Prepare wrote and two claims never share a file.
 *
 * <p>Environment of one device, with {@code <NAME>} its device name upper-cased and {@code -} as {@code _}
 * ({@code PCI_0000_3B_00_2}): {@code PCIDEVICE_<DRIVER>_<NAME>} = its PCI address (the SR-IOV device plugin's
 * variable family, per device here since a DRA request may hold several) and {@code RDMA_DEVICE_<NAME>} = its
 * RDMA device name ({@code mlx5_2}). Names are per device so that several devices in one container never
 * overwrite each other's variables.
 */
final class ClaimCdiSpecs {

    static final String CDI_VERSION = "0.5.0";
    static final String CLASS = "rdma";
    private static final String PERMISSIONS = "rw";
    private static final JsonFactory JSON = new JsonFactory();

    private final Path dir;
    private final String kind;
    private final DevicePaths paths;

    ClaimCdiSpecs(Path dir, String driverName, DevicePaths paths) {
        this.dir = dir;
        this.kind = driverName + "/" + CLASS;
        this.paths = paths;
    }

    Path file(String claimUid) {
        return dir.resolve(kind.replace('/', '-') + "_" + claimUid + ".json");
    }

    /** {@code rdma.rdmanode.io/rdma=<uid>-pci-0000-3b-00-2}. */
    String cdiId(String claimUid, String deviceName) {
        return kind + "=" + claimUid + "-" + deviceName;
    }

    /** Writes the claim's spec (replacing any previous one) and returns each device's CDI ID, in order. */
    List<String> write(String claimUid, List<NodeDevice> devices) throws IOException {
        StringWriter out = new StringWriter();
        List<String> ids = new ArrayList<>();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("cdiVersion", CDI_VERSION);
            g.writeStringField("kind", kind);
            g.writeArrayFieldStart("devices");
            for (NodeDevice d : devices) {
                g.writeStartObject();
                g.writeStringField("name", claimUid + "-" + d.name());
                g.writeObjectFieldStart("containerEdits");
                g.writeArrayFieldStart("env");
                for (Map.Entry<String, String> e : env(d).entrySet()) {
                    g.writeString(e.getKey() + "=" + e.getValue());
                }
                g.writeEndArray();
                g.writeArrayFieldStart("deviceNodes");
                for (DeviceNode n : paths.nodes(d.files(), PERMISSIONS)) {
                    g.writeStartObject();
                    g.writeStringField("path", n.containerPath());
                    g.writeStringField("hostPath", n.hostPath());
                    g.writeStringField("permissions", n.permissions());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
                g.writeEndObject();
                ids.add(cdiId(claimUid, d.name()));
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        DurableFiles.write(file(claimUid), out.append('\n').toString());
        return ids;
    }

    boolean exists(String claimUid) {
        return Files.exists(file(claimUid));
    }

    void delete(String claimUid) throws IOException {
        DurableFiles.delete(file(claimUid));
    }

    private Map<String, String> env(NodeDevice d) {
        String name = shellSafe(d.name());
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PCIDEVICE_" + shellSafe(kind.substring(0, kind.indexOf('/'))) + "_" + name, d.address().toString());
        env.put("RDMA_DEVICE_" + name, d.rdma().name());
        return env;
    }

    static String shellSafe(String s) {
        return s.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9_]", "_");
    }
}
