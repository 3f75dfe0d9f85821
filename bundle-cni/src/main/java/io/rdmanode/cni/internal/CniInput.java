// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Reading and validating one invocation's inputs (CNI spec §3.1, §3.4), each failure its spec error code. */
final class CniInput {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern CONTAINER_ID = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9_.\\-]*");
    private static final Pattern NETWORK_NAME = CONTAINER_ID;
    /** What the kernel refuses in a link name ('/', ':', whitespace), and control characters (log lines). */
    private static final Pattern IFNAME_BAD = Pattern.compile("[/:\\s\\p{Cntrl}\\u0080-\\u009f\\u2028\\u2029]");

    private CniInput() {
    }

    static JsonNode parse(byte[] stdin) throws CniError {
        try {
            JsonNode n = JSON.readTree(stdin);
            if (n == null || !n.isObject()) {
                throw new CniError(CniError.DECODE, "the network configuration on stdin is not a JSON object");
            }
            return n;
        } catch (JsonProcessingException e) {
            throw new CniError(CniError.DECODE, "the network configuration on stdin is not valid JSON: "
                    + e.getOriginalMessage());
        } catch (IOException e) {
            throw new CniError(CniError.IO_FAILURE, "cannot read the network configuration: " + e.getMessage());
        }
    }

    static JsonNode requireVersion(JsonNode conf, String version, String minimum) throws CniError {
        if (!CniHandler.SUPPORTED.contains(version)) {
            throw new CniError(CniError.INCOMPATIBLE_VERSION, "incompatible CNI version " + version
                    + ": the rdma plugin supports " + String.join(", ", CniHandler.SUPPORTED));
        }
        if (version.compareTo(minimum) < 0) {
            throw new CniError(CniError.INCOMPATIBLE_VERSION, "this command needs cniVersion " + minimum
                    + " or later, the configuration says " + version);
        }
        return conf;
    }

    static String networkName(JsonNode conf) throws CniError {
        String name = conf.path("name").asText("");
        if (!NETWORK_NAME.matcher(name).matches()) {
            throw new CniError(CniError.INVALID_CONFIG, "network name '" + name + "' is missing or invalid (it must"
                    + " start with a letter or digit, then letters, digits, '_', '.', '-')");
        }
        return name;
    }

    static String containerId(Map<String, String> env) throws CniError {
        String id = required(env, "CNI_CONTAINERID");
        if (!CONTAINER_ID.matcher(id).matches()) {
            throw new CniError(CniError.INVALID_ENV, "CNI_CONTAINERID '" + id + "' is invalid");
        }
        return id;
    }

    static String ifname(Map<String, String> env) throws CniError {
        String name = required(env, "CNI_IFNAME");
        // IFNAMSIZ is 16 bytes with the NUL: the limit is in UTF-8 bytes, as the kernel counts.
        if (name.getBytes(StandardCharsets.UTF_8).length > 15 || name.equals(".") || name.equals("..")
                || ifnameBad(name)) {
            throw new CniError(CniError.INVALID_ENV, "CNI_IFNAME '" + name + "' is invalid");
        }
        return name;
    }

    static boolean ifnameBad(String name) {
        return IFNAME_BAD.matcher(name).find();
    }

    static String required(Map<String, String> env, String key) throws CniError {
        String v = env.getOrDefault(key, "");
        if (v.isEmpty()) {
            throw new CniError(CniError.INVALID_ENV, key + " is not set");
        }
        return v;
    }

    /** Whether the configuration names a device ({@link #deviceId} would find one). */
    static boolean hasDeviceId(JsonNode conf) {
        for (JsonNode c : List.of(conf.path("deviceID"), conf.path("runtimeConfig").path("deviceID"),
                conf.path("pciBusID"), conf.path("args").path("cni").path("deviceID"))) {
            if (c.isTextual() && !c.asText().isEmpty()) {
                return true;
            }
        }
        for (JsonNode i : conf.path("prevResult").path("interfaces")) {
            if (i.path("pciID").isTextual() && !i.path("pciID").asText().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** deviceID as Multus passes it: top-level, runtimeConfig, pciBusID, args.cni, then prevResult's pciID. */
    static String deviceId(JsonNode conf) throws CniError {
        List<JsonNode> candidates = List.of(conf.path("deviceID"), conf.path("runtimeConfig").path("deviceID"),
                conf.path("pciBusID"), conf.path("args").path("cni").path("deviceID"));
        for (JsonNode c : candidates) {
            if (c.isTextual() && !c.asText().isEmpty()) {
                return validPci(c.asText());
            }
        }
        for (JsonNode i : conf.path("prevResult").path("interfaces")) {
            if (i.path("pciID").isTextual() && !i.path("pciID").asText().isEmpty()) {
                return validPci(i.path("pciID").asText());
            }
        }
        throw new CniError(CniError.INVALID_CONFIG, "deviceID is missing: the VF's PCI address must come as"
                + " deviceID (top level or runtimeConfig, set by Multus from the device plugin), pciBusID,"
                + " args.cni.deviceID or a prevResult interface's pciID, or be prepared by the DRA driver for the"
                + " pod named by K8S_POD_UID in CNI_ARGS");
    }

    static String validPci(String s) throws CniError {
        if (!s.matches("[0-9a-f]{4}:[0-9a-f]{2}:[01][0-9a-f]\\.[0-7]")) {
            throw new CniError(CniError.INVALID_CONFIG, "deviceID '" + s + "' is not a PCI address"
                    + " (dddd:bb:dd.f)");
        }
        return s;
    }

    static Map<String, String> cniArgs(String s) {
        Map<String, String> out = new HashMap<>();
        for (String kv : s.split(";")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                out.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return out;
    }
}
