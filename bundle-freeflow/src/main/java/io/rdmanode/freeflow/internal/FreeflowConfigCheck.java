// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.freeflow.internal.mapping.MappingSettings;
import io.rdmanode.freeflow.internal.rdmacm.AddressMap;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.osgi.annotation.bundle.Header;

/**
 * The Freeflow router's own check of {@code freeflow { ... }}: the socket must be one file inside
 * {@code socketDir} and fit a Unix socket address, the directories absolute. {@link FreeflowComponent} runs the
 * same check on activation ({@link #require}).
 */
@Header(name = ConfigValidator.HEADER, value = "${@class}")
public final class FreeflowConfigCheck implements ConfigValidator {

    /** sun_path holds 108 bytes with the terminating NUL. */
    static final int MAX_SOCKET_BYTES = 107;
    private static final Pattern ROUTER_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");

    @Override
    public List<Refusal> validate(Proposal proposal) {
        Map<String, Object> p = proposal.configurations().get(FreeflowComponent.PID);
        if (p == null) {
            return List.of();
        }
        List<Refusal> refusals = new ArrayList<>();
        check(string(p, "socketDir"), string(p, "routerName"), string(p, "shmDir"),
                (key, message) -> refusals.add(new Refusal(FreeflowComponent.PID,
                        p.containsKey(key) || !key.equals("routerName") ? key : "socketDir", message)));
        String transport = transportProblem(string(p, "transport"), string(p, "device"), selected(p),
                SYS_INFINIBAND);
        if (transport != null) {
            int colon = transport.indexOf(": ");          // "key: message": the key goes to the refusal's property
            refusals.add(new Refusal(FreeflowComponent.PID, transport.substring(0, colon),
                    transport.substring(colon + 2)));
        }
        String mapping = mappingProblem(p);
        if (mapping != null) {
            refusals.add(new Refusal(FreeflowComponent.PID, "hosts", mapping));
        }
        String addressMap = addressMapProblem(strings(p.getOrDefault("addressMap", new String[0])));
        if (addressMap != null) {
            refusals.add(new Refusal(FreeflowComponent.PID, "addressMap", addressMap));
        }
        return refusals;
    }

    /** Throws what {@link #validate} would refuse in {@code config}: the component's activation check. */
    static void require(FreeflowComponent.Config config) {
        List<String> problems = new ArrayList<>();
        check(config.socketDir(), config.routerName(), config.shmDir(), (key, message) -> problems.add(key + ": "
                + message));
        String transport = transportProblem(config.transport(), config.device(),
                !FreeflowComponent.deviceSelectors(config).isEmpty(), SYS_INFINIBAND);
        if (transport != null) {
            problems.add(transport);
        }
        try {
            FreeflowComponent.mappingSettings(config);
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        String addressMap = addressMapProblem(config.addressMap());
        if (addressMap != null) {
            problems.add("addressMap: " + addressMap);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("freeflow: " + String.join("; ", problems));
        }
    }

    private static void check(String socketDir, String routerName, String shmDir,
                              java.util.function.BiConsumer<String, String> refuse) {
        String dir = pathProblem(socketDir);
        if (dir != null) {
            refuse.accept("socketDir", dir);
        }
        String shm = pathProblem(shmDir);
        if (shm != null) {
            refuse.accept("shmDir", shm);
        }
        if (!ROUTER_NAME.matcher(routerName).matches()) {
            refuse.accept("routerName", "'" + routerName + "' is not a router name: it is the socket's file name in"
                    + " socketDir, so one name of letters, digits, '_', '.', '-' (at most 64, no '/' or '..'; the"
                    + " clients' FFR_NAME)");
            return;
        }
        if (dir == null) {
            String socket = socketDir.replaceAll("/+$", "") + "/" + routerName;
            int bytes = socket.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_SOCKET_BYTES) {
                refuse.accept("routerName", "the socket " + socket + " is " + bytes + " bytes; a Unix socket path is"
                        + " at most " + MAX_SOCKET_BYTES + " bytes (socketDir + '/' + routerName)");
            }
        }
    }

    /** Where the kernel lists RDMA devices by name. */
    static final java.nio.file.Path SYS_INFINIBAND = java.nio.file.Path.of("/sys/class/infiniband");

    /**
     * {@code transport} is software or verbs; verbs names a device that {@code sysInfiniband} lists (the kernel's
     * view: a device that is not there cannot be opened, so the configuration is refused rather than the router
     * failing at start). Null when fine; the message starts with the key it is about.
     */
    static String transportProblem(String transport, String device, java.nio.file.Path sysInfiniband) {
        return transportProblem(transport, device, false, sysInfiniband);
    }

    /**
     * ... or, with {@code selected} ({@code deviceSelectors} given), no device: the two exclude each other. The
     * selectors' values are the pools' and are judged by the device-plugin bundle's check, which owns their rules
     * ({@link io.rdmanode.agent.RdmaDeviceChooser}); the device is chosen when the router starts.
     */
    static String transportProblem(String transport, String device, boolean selected,
                                   java.nio.file.Path sysInfiniband) {
        String t = transport == null ? "" : transport.trim();
        if (t.equals(io.rdmanode.freeflow.internal.router.RouterSettings.Backend.SOFTWARE_NAME)) {
            return null;
        }
        if (!t.equals(io.rdmanode.freeflow.internal.router.RouterSettings.Backend.VERBS_NAME)) {
            return "transport: '" + transport + "' is not a transport; software or verbs";
        }
        String d = device == null ? "" : device.trim();
        if (selected) {
            return d.isEmpty() ? null : "device: freeflow.device and freeflow.deviceSelectors exclude each other;"
                    + " name the device or select it";
        }
        if (d.isEmpty()) {
            return "device: transport verbs needs the RDMA device's name (freeflow.device, e.g. mlx5_0 or rxe0) or"
                    + " freeflow.deviceSelectors";
        }
        if (!d.matches("[A-Za-z0-9_.-]{1,63}") || d.equals(".") || d.equals("..")) {
            return "device: '" + device + "' is not an RDMA device name";
        }
        if (!java.nio.file.Files.isDirectory(sysInfiniband.resolve(d))) {
            String[] present = sysInfiniband.toFile().list();
            return "device: RDMA device '" + d + "' does not exist on this host (" + sysInfiniband + " lists "
                    + (present == null || present.length == 0 ? "no device" : String.join(", ",
                            new java.util.TreeSet<>(List.of(present)))) + ")";
        }
        return null;
    }

    /** Whether the proposal names any device selector ({@code deviceSelectors.<kind>} with an entry). */
    private static boolean selected(Map<String, Object> p) {
        return p.entrySet().stream().anyMatch(e -> e.getKey().startsWith(io.rdmanode.agent.RdmaDeviceChooser.PREFIX)
                && strings(e.getValue()).length > 0);
    }

    /** rdma_cm's overlay map as the component parses it ({@link AddressMap#parse}); null when fine. */
    static String addressMapProblem(String[] entries) {
        try {
            AddressMap.parse(entries);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static String[] strings(Object v) {
        return v instanceof String[] a ? a : v instanceof java.util.Collection<?> c
                ? c.stream().map(String::valueOf).toArray(String[]::new) : new String[] {String.valueOf(v)};
    }

    /** The MR mapping's settings as the component parses them ({@link MappingSettings#of}); null when fine. */
    private static String mappingProblem(Map<String, Object> p) {
        try {
            Object hosts = p.getOrDefault("hosts", new String[0]);
            String[] list = hosts instanceof String[] a ? a : hosts instanceof java.util.Collection<?> c
                    ? c.stream().map(String::valueOf).toArray(String[]::new) : new String[] {String.valueOf(hosts)};
            MappingSettings.of(list, number(p, "mappingPort").intValue(), string(p, "mappingBind"),
                    number(p, "mappingAckTimeout").longValue(), number(p, "mappingAttempts").intValue());
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static Number number(Map<String, Object> properties, String key) {
        Object value = properties.get(key);
        if (value instanceof Number n) {
            return n;
        }
        if (value instanceof String text) {
            try {
                return Long.parseLong(text.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + ": '" + text + "' is not a number", e);
            }
        }
        try {
            return (Number) FreeflowComponent.Config.class.getMethod(key).getDefaultValue();
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("Config has no " + key, e);
        }
    }

    private static String pathProblem(String path) {
        if (path.isBlank()) {
            return "empty; an absolute directory is expected, e.g. /freeflow";
        }
        if (!path.startsWith("/")) {
            return "'" + path + "' is relative; an absolute directory (starting with /) is expected";
        }
        if (path.indexOf('\0') >= 0 || List.of(path.split("/")).contains("..")) {
            return "'" + path + "' contains '..' or a NUL; an absolute directory without them is expected";
        }
        return null;
    }

    /** The value in the file, else the component's default (the annotation is the one place defaults live). */
    private static String string(Map<String, Object> properties, String key) {
        Object value = properties.get(key);
        if (value instanceof String text) {
            return text;
        }
        try {
            return (String) FreeflowComponent.Config.class.getMethod(key).getDefaultValue();
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("Config has no " + key, e);
        }
    }
}
