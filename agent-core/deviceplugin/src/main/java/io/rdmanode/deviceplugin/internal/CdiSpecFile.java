// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.rdmanode.deviceplugin.CdiDevice;
import io.rdmanode.deviceplugin.CdiSpec;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One pool's claim on a CDI spec file (CDI spec 0.5.0: {@code cdiVersion}, {@code kind}, {@code devices[].name},
 * {@code containerEdits.deviceNodes[]} with {@code path}, {@code hostPath}, {@code permissions}, and
 * {@code env} as {@code K=V} strings), written with Jackson's streaming generator. Closing it gives the claim
 * back and leaves the file: {@link CdiSpecs} decides when a spec goes.
 */
final class CdiSpecFile implements CdiSpec {

    static final String CDI_VERSION = "0.5.0";
    private static final JsonFactory JSON = new JsonFactory();

    private final String kind;
    private final String owner;
    private final Path file;
    private final java.util.function.Consumer<CdiSpecFile> onClose;
    private List<CdiDevice> written = List.of();
    private boolean onDisk;

    CdiSpecFile(Path dir, String kind, String owner, java.util.function.Consumer<CdiSpecFile> onClose) {
        this.onClose = onClose;
        this.kind = kind;
        this.owner = owner;
        this.file = dir.resolve(kind.replace('/', '-') + "_" + owner + ".json");
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public Path file() {
        return file;
    }

    @Override
    public String qualifiedName(String device) {
        return kind + "=" + device;
    }

    @Override
    public String annotationKey() {
        return "cdi.k8s.io/" + kind.replace('/', '_') + "_" + owner;
    }

    @Override
    public synchronized boolean write(List<CdiDevice> devices) throws IOException {
        if (onDisk && devices.equals(written) && Files.exists(file)) {
            return false;
        }
        AtomicFiles.write(file, json(kind, devices));     // a runtime never reads half a spec
        written = List.copyOf(devices);
        onDisk = true;
        return true;
    }

    @Override
    public synchronized List<CdiDevice> written() {
        return written;
    }

    @Override
    public void close() {
        onClose.accept(this);
    }

    static String json(String kind, List<CdiDevice> devices) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("cdiVersion", CDI_VERSION);
            g.writeStringField("kind", kind);
            g.writeArrayFieldStart("devices");
            for (CdiDevice d : devices) {
                g.writeStartObject();
                g.writeStringField("name", d.name());
                g.writeObjectFieldStart("containerEdits");
                if (!d.env().isEmpty()) {
                    g.writeArrayFieldStart("env");
                    for (Map.Entry<String, String> e : new TreeMap<>(d.env()).entrySet()) {
                        g.writeString(e.getKey() + "=" + e.getValue());
                    }
                    g.writeEndArray();
                }
                g.writeArrayFieldStart("deviceNodes");
                for (DeviceNode n : d.deviceNodes()) {
                    g.writeStartObject();
                    g.writeStringField("path", n.containerPath());
                    g.writeStringField("hostPath", n.hostPath());
                    g.writeStringField("permissions", n.permissions());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        return out.append('\n').toString();
    }
}
