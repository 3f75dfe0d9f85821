// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the driver's files are, from its configuration: the two sockets kubelet finds (the registration socket
 * in kubelet's plugin-watcher directory, the DRA service socket under kubelet's plugins directory), the CDI spec
 * directory the container runtime reads, and the agent's state directory for the prepared-claims checkpoint.
 *
 * @param driverName a DNS subdomain, e.g. {@code rdma.rdmanode.io}: the ResourceSlices' and claims' driver
 * @param hostDevRoot the node's {@code /dev} as the container runtime sees it (CDI host paths)
 */
public record DraSettings(String driverName, Path pluginsDir, Path registryDir, Path cdiDir, Path stateDir,
                          Path hostDevRoot, String instance) {

    public static final String DEFAULT_DRIVER = "rdma.rdmanode.io";

    public DraSettings {
        Objects.requireNonNull(driverName, "driverName");
        DraConfigCheck.driverNameProblem(driverName).ifPresent(problem -> {
            throw new IllegalArgumentException("driver name " + problem);
        });
        Objects.requireNonNull(pluginsDir, "pluginsDir");
        Objects.requireNonNull(registryDir, "registryDir");
        Objects.requireNonNull(cdiDir, "cdiDir");
        Objects.requireNonNull(stateDir, "stateDir");
        Objects.requireNonNull(hostDevRoot, "hostDevRoot");
        Objects.requireNonNull(instance, "instance");
        if (!instance.matches("[a-z0-9]{0,16}")) {
            throw new IllegalArgumentException("instance tag '" + instance + "' must be up to 16 of [a-z0-9]");
        }
    }

    /** Fixed socket names, one instance at a time. */
    public DraSettings(String driverName, Path pluginsDir, Path registryDir, Path cdiDir, Path stateDir,
                       Path hostDevRoot) {
        this(driverName, pluginsDir, registryDir, cdiDir, stateDir, hostDevRoot, "");
    }

    /**
     * The same settings with sockets named for one instance ({@code <driver>-<instance>-reg.sock},
     * {@code dra-<instance>.sock}): kubelet 1.33+ keeps every registered instance of a driver and uses the newest,
     * so a successor registers beside its predecessor and the predecessor's sockets can go without kubelet losing
     * the driver (its plugin watcher's rolling update; with one fixed name, the successor's unlink and listen
     * would make kubelet deregister the driver).
     */
    public DraSettings withInstance(String tag) {
        return new DraSettings(driverName, pluginsDir, registryDir, cdiDir, stateDir, hostDevRoot, tag);
    }

    /** {@code <pluginsDir>/<driver>/dra.sock}: the endpoint GetInfo names. */
    public Path draSocket() {
        return pluginsDir.resolve(driverName).resolve(instance.isEmpty() ? "dra.sock" : "dra-" + instance + ".sock");
    }

    /** {@code <registryDir>/<driver>-reg.sock}: what kubelet's plugin watcher finds. */
    public Path registrationSocket() {
        return registryDir.resolve(driverName + (instance.isEmpty() ? "" : "-" + instance) + "-reg.sock");
    }

    /** Whether {@code file} is a registration or DRA socket name of this driver, of any instance. */
    boolean ownSocketName(Path file) {
        String name = file.getFileName().toString();
        if (file.getParent() != null && file.getParent().equals(registryDir)) {
            return name.equals(driverName + "-reg.sock")
                    || name.startsWith(driverName + "-") && name.endsWith("-reg.sock")
                    && name.substring(driverName.length() + 1, name.length() - "-reg.sock".length()).matches("[a-z0-9]{1,16}");
        }
        return name.equals("dra.sock") || name.matches("dra-[a-z0-9]{1,16}\\.sock");
    }

    /** {@code <stateDir>/dra-prepared.json}. */
    public Path checkpoint() {
        return stateDir.resolve("dra-prepared.json");
    }
}
