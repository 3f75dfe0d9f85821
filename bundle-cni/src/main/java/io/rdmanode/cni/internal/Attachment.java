// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmanode.cni.PodAttachment;
import java.time.Instant;

/**
 * One attachment's persisted state. {@code ADDING} is written before the device moves (the intent), {@code ADDED}
 * after; a crash leaves one of the two, and reconciliation knows from it what may have happened.
 */
record Attachment(String network, String containerId, String ifname, String netns, String podNamespace,
                  String podName, String pciAddress, String rdmaDevice, Phase phase, Instant since) {

    enum Phase { ADDING, ADDED }

    static final int FORMAT = 1;

    String key() {
        return key(network, containerId, ifname);
    }

    /** File-name-safe: none of the three may contain ':' or '/' (validated before). */
    static String key(String network, String containerId, String ifname) {
        return network + ":" + containerId + ":" + ifname;
    }

    /**
     * The longest key a record can have: it names files ({@code <key>.json}, {@code <key>.del}, and their temporary
     * {@code .tmp}), and a file name has at most 255 bytes.
     */
    static final int MAX_KEY_BYTES = 240;

    /** Whether no record can have this key: its files' names would be too long. */
    static boolean tooLong(String key) {
        return key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_KEY_BYTES;
    }

    Attachment with(Phase p) {
        return new Attachment(network, containerId, ifname, netns, podNamespace, podName, pciAddress, rdmaDevice, p,
                since);
    }

    PodAttachment toApi() {
        return new PodAttachment(network, containerId, ifname, netns, podNamespace, podName, pciAddress, rdmaDevice,
                since);
    }

    ObjectNode toJson() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("format", FORMAT).put("network", network).put("containerId", containerId).put("ifname", ifname)
                .put("netns", netns).put("podNamespace", podNamespace).put("podName", podName)
                .put("pciAddress", pciAddress).put("rdmaDevice", rdmaDevice).put("phase", phase.name())
                .put("since", since.toString());
        return o;
    }

    static Attachment fromJson(JsonNode o) {
        return new Attachment(o.path("network").asText(), o.path("containerId").asText(), o.path("ifname").asText(),
                o.path("netns").asText(), o.path("podNamespace").asText(), o.path("podName").asText(),
                o.path("pciAddress").asText(), o.path("rdmaDevice").asText(),
                Phase.valueOf(o.path("phase").asText("ADDING")), Instant.parse(o.path("since").asText()));
    }
}
