// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The device-plugin host's settings, from the {@code io.rdmanode.kubelet} configuration.
 *
 * @param pluginDir          kubelet's device-plugins directory; plugin sockets are created here (classic)
 * @param kubeletSocket      kubelet's registration socket, normally {@code pluginDir/kubelet.sock}
 * @param registrationTimeout milliseconds a {@code Register} call may take
 * @param shutdownTimeout    milliseconds a server may take to stop before it is forced
 * @param resyncInterval     milliseconds between safety-net checks of sockets and registrations
 * @param ioThreads          event loop threads shared by all servers and clients
 * @param registration       how plugins register with kubelet
 * @param registryDir        kubelet's plugin-watcher directory; plugin sockets go here in watcher mode
 * @param getInfoDeadline    {@code auto}: milliseconds kubelet's plugin watcher has to call {@code GetInfo} on the
 *                           first socket before every pool registers through kubelet.sock instead
 */
public record HostSettings(Path pluginDir, Path kubeletSocket, long registrationTimeout, long shutdownTimeout,
                           long resyncInterval, int ioThreads, Registration registration, Path registryDir,
                           long getInfoDeadline) {

    /** kubelet's plugin watcher calls GetInfo within about a second of a socket appearing; three leave room. */
    public static final long DEFAULT_GET_INFO_DEADLINE = 3000;

    /**
     * {@code CLASSIC}: socket in the device-plugins directory and a {@code Register} call on kubelet.sock
     * (protocol-facts §1.4). {@code WATCHER}: socket in {@code plugins_registry}, found by kubelet's plugin
     * watcher (§1.5). {@code AUTO}: the watcher when its directory exists when the host starts, as the peer
     * plugins choose, kept only when kubelet calls {@code GetInfo} within {@link #getInfoDeadline} (else classic:
     * see {@link AutoRegistration}).
     */
    public enum Registration { AUTO, CLASSIC, WATCHER }

    public HostSettings(Path pluginDir, Path kubeletSocket, long registrationTimeout, long shutdownTimeout,
                        long resyncInterval, int ioThreads, Registration registration, Path registryDir) {
        this(pluginDir, kubeletSocket, registrationTimeout, shutdownTimeout, resyncInterval, ioThreads,
                registration, registryDir, DEFAULT_GET_INFO_DEADLINE);
    }

    /** Classic registration. */
    public HostSettings(Path pluginDir, Path kubeletSocket, long registrationTimeout, long shutdownTimeout,
                        long resyncInterval, int ioThreads) {
        this(pluginDir, kubeletSocket, registrationTimeout, shutdownTimeout, resyncInterval, ioThreads,
                Registration.CLASSIC, pluginDir.resolveSibling("plugins_registry"));
    }

    /** The mode in force: {@code AUTO} resolved now. */
    public HostSettings resolved() {
        if (registration != Registration.AUTO) {
            return this;
        }
        return with(Files.isDirectory(registryDir) ? Registration.WATCHER : Registration.CLASSIC);
    }

    /** These settings with another registration mode (auto's fallback to classic). */
    public HostSettings with(Registration mode) {
        return new HostSettings(pluginDir, kubeletSocket, registrationTimeout, shutdownTimeout, resyncInterval,
                ioThreads, mode, registryDir, getInfoDeadline);
    }

    /**
     * What, if changed, needs a new host: where the sockets are and how they register (a change closes every
     * plugin socket and registers again).
     */
    public record Identity(Path pluginDir, Path kubeletSocket, int ioThreads, Registration registration,
                           Path registryDir) {
    }

    /** What a running host takes over in place: no socket closes, no stream resets. */
    public record Tuning(long registrationTimeout, long shutdownTimeout, long resyncInterval, long getInfoDeadline) {
    }

    public Identity identity() {
        return new Identity(pluginDir, kubeletSocket, ioThreads, registration, registryDir);
    }

    public Tuning tuning() {
        return new Tuning(registrationTimeout, shutdownTimeout, resyncInterval, getInfoDeadline);
    }

    /** Whether {@code other} puts the sockets in the same places the same way (same {@link #identity}). */
    public boolean sameSockets(HostSettings other) {
        return identity().equals(other.identity());
    }

    public boolean watcher() {
        return registration == Registration.WATCHER;
    }

    /** Where plugin sockets are created and watched. */
    public Path socketDir() {
        return watcher() ? registryDir : pluginDir;
    }
}
