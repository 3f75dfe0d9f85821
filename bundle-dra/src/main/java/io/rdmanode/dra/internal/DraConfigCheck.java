// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.agent.SettingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import org.osgi.annotation.bundle.Header;

/**
 * The DRA driver's own check of {@code dra { ... }}, the same on every live reload, in {@code check-config} and
 * when {@link DraComponent} activates ({@link #require}): the node name it publishes under, the driver and pool
 * names the API server would refuse, absolute directories, sockets that fit a Unix socket address, and the pools'
 * selectors as the device-plugin layer parses them. With {@code pools = [ ... ]}: every entry named, names unique
 * and valid pool names, only the last entry without selectors (one without takes every device the earlier ones
 * did not, so a later one would be empty), and the single-pool keys {@code pool} and {@code selectors.*} unset. A
 * device matched by several pools is not refused: it is in the first (see {@link PoolDevices}; {@code /status}
 * lists such overlaps).
 */
@Header(name = ConfigValidator.HEADER, value = "${@class}")
public final class DraConfigCheck implements ConfigValidator {

    /** sun_path holds 108 bytes with the terminating NUL. */
    static final int MAX_SOCKET_BYTES = 107;
    /** An instance tag: milliseconds in base 36, 8 characters until 2059. */
    static final int INSTANCE_TAG_CHARS = 8;
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final List<String> DIRECTORIES =
            List.of("pluginsDir", "registryDir", "cdiDir", "stateDir", "hostDevRoot", "sysfsRoot");

    @Override
    public List<Refusal> validate(Proposal proposal) {
        Map<String, Object> p = proposal.configurations().get(DraComponent.PID);
        if (p == null) {
            return List.of();
        }
        List<Refusal> refusals = new ArrayList<>();
        check(p, (key, message) -> refusals.add(new Refusal(DraComponent.PID, key, message)));
        return refusals;
    }

    /** Throws what {@link #validate} would refuse in {@code c}: the component's activation check. */
    static void require(DraComponent.Settings c) {
        require(c, Map.of());
    }

    /**
     * Throws what {@link #validate} would refuse in {@code c} with the {@code pools.<i>.*} entries of
     * {@code raw} (the component's configuration properties; the typed settings cannot hold a list's elements).
     */
    static void require(DraComponent.Settings c, Map<String, ?> raw) {
        Map<String, Object> p = properties(c);
        raw.forEach((key, value) -> {
            if (key.startsWith("pools.")) {
                p.put(key, value);
            }
        });
        List<String> problems = new ArrayList<>();
        check(p, (key, message) -> problems.add(key + ": " + message));
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("dra: " + String.join("; ", problems));
        }
    }

    /** The component's settings under the property keys the configuration uses. */
    static Map<String, Object> properties(DraComponent.Settings c) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("enabled", c.enabled());
        p.put("driverName", c.driverName());
        p.put("nodeName", c.nodeName());
        p.put("pool", c.pool());
        p.put("pluginsDir", c.pluginsDir());
        p.put("registryDir", c.registryDir());
        p.put("cdiDir", c.cdiDir());
        p.put("stateDir", c.stateDir());
        p.put("hostDevRoot", c.hostDevRoot());
        p.put("sysfsRoot", c.sysfsRoot());
        p.put("kubeconfig", c.kubeconfig());
        p.put("socketPerInstance", c.socketPerInstance());
        p.put("selectors.vendors", c.selectors_vendors());
        p.put("selectors.devices", c.selectors_devices());
        p.put("selectors.drivers", c.selectors_drivers());
        p.put("selectors.pciAddresses", c.selectors_pciAddresses());
        p.put("selectors.ifNames", c.selectors_ifNames());
        p.put("selectors.pfNames", c.selectors_pfNames());
        p.put("selectors.rootDevices", c.selectors_rootDevices());
        p.put("selectors.linkTypes", c.selectors_linkTypes());
        return p;
    }

    private static void check(Map<String, Object> p, BiConsumer<String, String> refuse) {
        boolean enabled = Boolean.TRUE.equals(p.get("enabled"));
        String driver = string(p, "driverName", DraSettings.DEFAULT_DRIVER);
        Optional<String> driverProblem = driverNameProblem(driver);
        driverProblem.ifPresent(m -> refuse.accept("driverName", m));
        String node = string(p, "nodeName", "");
        if (node.isBlank()) {
            if (enabled) {
                refuse.accept("nodeName", "required when enabled = true: the name of this node, which its"
                        + " ResourceSlices name (the DaemonSet passes it: nodeName = ${?NODE_NAME})");
            }
        } else if (node.length() > 253 || !DNS_SUBDOMAIN.matcher(node).matches()) {
            refuse.accept("nodeName", "'" + node + "' is not a node name (a DNS subdomain of at most 253 characters)");
        }
        String pool = string(p, "pool", "");
        if (!pool.isEmpty()) {
            poolNameProblem(pool).ifPresent(m -> refuse.accept("pool", m + "; empty = the node name"));
        }
        boolean dirsOk = true;
        for (String key : DIRECTORIES) {
            String dir = string(p, key, "/");
            if (!dir.startsWith("/")) {
                refuse.accept(key, "'" + dir + "' is not an absolute path");
                dirsOk = false;
            }
        }
        String kubeconfig = string(p, "kubeconfig", "");
        if (!kubeconfig.isEmpty() && !kubeconfig.startsWith("/")) {
            refuse.accept("kubeconfig", "'" + kubeconfig + "' is not an absolute path (empty = in-cluster"
                    + " ServiceAccount credentials)");
        }
        if (dirsOk && driverProblem.isEmpty()) {
            boolean perInstance = !Boolean.FALSE.equals(p.get("socketPerInstance"));
            String tag = perInstance ? "x".repeat(INSTANCE_TAG_CHARS) : "";
            DraSettings s = new DraSettings(driver, java.nio.file.Path.of(string(p, "pluginsDir", "/")),
                    java.nio.file.Path.of(string(p, "registryDir", "/")), java.nio.file.Path.of("/"),
                    java.nio.file.Path.of("/"), java.nio.file.Path.of("/"), tag);
            socketFits("registryDir", s.registrationSocket(), perInstance, refuse);
            socketFits("pluginsDir", s.draSocket(), perInstance, refuse);
        }
        java.util.SortedSet<Integer> pools = DraPools.indexes(p);
        if (pools.isEmpty()) {
            selectors(p, "selectors.", refuse);
        } else {
            pools(p, pools, refuse);
        }
    }

    private static void pools(Map<String, Object> p, java.util.SortedSet<Integer> pools,
                              BiConsumer<String, String> refuse) {
        if (!string(p, "pool", "").isEmpty()) {
            refuse.accept("pool", "applies only without pools; with pools = [ ... ] each entry names its pool");
        }
        for (String kind : DraPools.SELECTOR_KINDS) {
            if (!DraPools.list(p, "selectors." + kind).isEmpty()) {
                refuse.accept("selectors." + kind, "applies only without pools; with pools = [ ... ] each entry"
                        + " has its own selectors");
            }
        }
        Map<String, Integer> names = new LinkedHashMap<>();
        int last = pools.last();
        for (int i : pools) {
            String prefix = DraPools.prefix(i);
            String name = string(p, prefix + "name", "");
            if (name.isBlank()) {
                refuse.accept(prefix + "name", "required: every entry of pools names its ResourceSlice pool");
            } else {
                Optional<String> problem = poolNameProblem(name);
                problem.ifPresent(m -> refuse.accept(prefix + "name", m));
                Integer before = names.putIfAbsent(name, i);
                if (problem.isEmpty() && before != null) {
                    refuse.accept(prefix + "name", "duplicate pool name '" + name + "' (also pools entry " + before
                            + ")");
                }
            }
            if (i != last && !DraPools.hasSelectors(p, prefix + "selectors.")) {
                refuse.accept(prefix + "selectors", "only the last entry of pools may have no selectors: one without"
                        + " takes every device no earlier pool took, so the pools after it would be empty");
            }
            selectors(p, prefix + "selectors.", refuse);
        }
    }

    private static void selectors(Map<String, Object> p, String prefix, BiConsumer<String, String> refuse) {
        try {
            DraPools.selectors(p, prefix);
        } catch (SettingException e) {
            refuse.accept(e.property(), e.getMessage());
        }
    }

    /** Why the API server would refuse {@code pool} as a ResourceSlice pool name; empty when it takes it. */
    static Optional<String> poolNameProblem(String pool) {
        if (pool.length() > 253 || !java.util.Arrays.stream(pool.split("/", -1))
                .allMatch(part -> DNS_SUBDOMAIN.matcher(part).matches())) {
            return Optional.of("'" + pool + "' is not a ResourceSlice pool name (DNS subdomains separated by"
                    + " '/', at most 253 characters)");
        }
        return Optional.empty();
    }

    /** Why the API server and kubelet would refuse {@code driver} as a driver name; empty when they take it. */
    static Optional<String> driverNameProblem(String driver) {
        if (driver.length() > 63 || !DNS_SUBDOMAIN.matcher(driver).matches()) {
            return Optional.of("'" + driver + "' must be a DNS subdomain of at most 63 characters (lower-case"
                    + " letters, digits, '-', '.')");
        }
        return Optional.empty();
    }

    private static void socketFits(String key, java.nio.file.Path socket, boolean perInstance,
                                   BiConsumer<String, String> refuse) {
        int bytes = socket.toString().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_SOCKET_BYTES) {
            refuse.accept(key, "the socket " + socket + (perInstance ? " (with its " + INSTANCE_TAG_CHARS
                    + "-character instance tag)" : "") + " is " + bytes + " bytes; a Unix socket path is at most "
                    + MAX_SOCKET_BYTES + " bytes");
        }
    }

    private static String string(Map<String, Object> p, String key, String fallback) {
        Object v = p.get(key);
        return v == null ? fallback : v.toString();
    }
}
