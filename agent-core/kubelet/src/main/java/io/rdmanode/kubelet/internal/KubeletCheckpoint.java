// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmanode.kubelet.HeldDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads kubelet's device-manager checkpoint, {@code <pluginDir>/kubelet_internal_checkpoint}
 * ({@code pkg/kubelet/cm/devicemanager/checkpoint/checkpoint.go}):
 * <pre>
 * {"Data":{"PodDeviceEntries":[{"PodUID":"..","ContainerName":"..","ResourceName":"..",
 *                               "DeviceIDs":{"-1":["id",..]},"AllocResp":"base64.."}],
 *          "RegisteredDevices":{"rdma/x":["id",..]}},
 *  "Checksum":123,"BootID":".."}
 * </pre>
 * {@code DeviceIDs} maps a NUMA node ({@code -1}: no topology) to IDs since kubelet 1.20; older kubelets wrote a
 * plain list, and both are read. The checksum is not verified: it is an FNV-32a of Go's {@code %#v} printing of
 * the data struct, which cannot be reproduced faithfully outside Go; a file that is not the JSON above is
 * refused with what is wrong and where.
 */
public final class KubeletCheckpoint {

    /** The file name kubelet's device manager uses. */
    public static final String FILE_NAME = "kubelet_internal_checkpoint";

    private static final ObjectMapper JSON = new ObjectMapper();

    private KubeletCheckpoint() {
    }

    /** Malformed or unreadable checkpoint; the message names the file and what is wrong. */
    public static final class CheckpointException extends Exception {
        private static final long serialVersionUID = 1L;

        CheckpointException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** What the checkpoint at {@code file} says containers hold (namespace and pod name empty). */
    public static List<HeldDevice> read(Path file) throws CheckpointException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new CheckpointException("kubelet checkpoint " + file + ": absent", e);
        } catch (IOException e) {
            throw new CheckpointException("cannot read kubelet checkpoint " + file + ": " + e.getMessage(), e);
        }
        return parse(file, bytes);
    }

    static List<HeldDevice> parse(Path file, byte[] bytes) throws CheckpointException {
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (JacksonException e) {
            throw malformed(file, "not JSON (" + bytes.length + " bytes, truncated?): " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw malformed(file, e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw malformed(file, "not a JSON object", null);
        }
        JsonNode data = root.get("Data");
        if (data == null || !data.isObject()) {
            throw malformed(file, "no \"Data\" object", null);
        }
        JsonNode entries = data.get("PodDeviceEntries");
        if (entries == null || entries.isNull()) {
            return List.of();                          // Go marshals an empty slice field as null
        }
        if (!entries.isArray()) {
            throw malformed(file, "Data.PodDeviceEntries is not a list", null);
        }
        List<HeldDevice> out = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            entry(file, "Data.PodDeviceEntries[" + i + "]", entries.get(i), out);
        }
        return out;
    }

    private static void entry(Path file, String where, JsonNode entry, List<HeldDevice> out)
            throws CheckpointException {
        if (!entry.isObject()) {
            throw malformed(file, where + " is not an object", null);
        }
        String uid = text(file, where, entry, "PodUID");
        String container = text(file, where, entry, "ContainerName");
        String resource = text(file, where, entry, "ResourceName");
        JsonNode ids = entry.get("DeviceIDs");
        List<JsonNode> lists = new ArrayList<>();
        if (ids == null || ids.isNull()) {
            return;
        } else if (ids.isArray()) {                    // kubelet < 1.20: a plain list
            lists.add(ids);
        } else if (ids.isObject()) {                   // NUMA node -> list
            for (Map.Entry<String, JsonNode> numa : ids.properties()) {
                if (!numa.getValue().isNull()) {
                    lists.add(numa.getValue());
                }
            }
        } else {
            throw malformed(file, where + ".DeviceIDs is neither a list nor a map of NUMA node to list", null);
        }
        for (JsonNode list : lists) {
            if (!list.isArray()) {
                throw malformed(file, where + ".DeviceIDs has a NUMA node whose value is not a list", null);
            }
            for (JsonNode id : list) {
                if (!id.isTextual()) {
                    throw malformed(file, where + ".DeviceIDs holds " + id + ", not a string", null);
                }
                out.add(new HeldDevice("", "", uid, container, resource, id.textValue()));
            }
        }
    }

    private static String text(Path file, String where, JsonNode entry, String field) throws CheckpointException {
        JsonNode value = entry.get(field);
        if (value == null || !value.isTextual()) {
            throw malformed(file, where + "." + field + " is " + (value == null ? "missing" : value)
                    + ", not a string", null);
        }
        return value.textValue();
    }

    private static CheckpointException malformed(Path file, String what, Throwable cause) {
        return new CheckpointException("kubelet checkpoint " + file + " is malformed: " + what, cause);
    }
}
