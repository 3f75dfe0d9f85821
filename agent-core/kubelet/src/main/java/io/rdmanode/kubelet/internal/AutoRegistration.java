// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import java.time.Duration;

/**
 * How the host registers, and for {@code auto} how it found out. {@code auto} with an existing
 * {@code plugins_registry} starts in watcher mode on probation: kubelet's plugin watcher calls {@code GetInfo}
 * within about a second of a socket appearing (protocol-facts §1.5), so a {@code GetInfo} before the deadline
 * confirms the watcher; none means no kubelet watches that directory (kubelet runs with another
 * {@code --root-dir} and the DaemonSet created the directory), and every pool falls back to classic
 * registration through {@code kubelet.sock}. Without that fallback nothing would ever register. The decision is
 * made once, for every pool, for the host's life. Thread-safe.
 */
final class AutoRegistration {

    enum Mode { CLASSIC, WATCHER, PROBING }

    private final boolean auto;
    private final Duration deadline;
    private Mode mode;                                   // guarded by this
    private boolean probeStarted;                        // guarded by this
    private String how;                                  // guarded by this

    /** @param resolved the settings with {@code auto} resolved by the directory's presence */
    AutoRegistration(HostSettings requested, HostSettings resolved) {
        this.auto = requested.registration() == HostSettings.Registration.AUTO;
        this.deadline = Duration.ofMillis(requested.getInfoDeadline());
        if (!resolved.watcher()) {
            mode = Mode.CLASSIC;
            how = auto ? "auto → classic: " + resolved.registryDir() + " absent" : "classic";
        } else if (auto) {
            mode = Mode.PROBING;
            how = "auto → watcher until kubelet calls GetInfo (classic if none within " + seconds() + ")";
        } else {
            mode = Mode.WATCHER;
            how = "watcher";
        }
    }

    /** Whether the caller should start the deadline now: true once, for the first socket bound on probation. */
    synchronized boolean startProbe() {
        if (mode != Mode.PROBING || probeStarted) {
            return false;
        }
        probeStarted = true;
        return true;
    }

    Duration deadline() {
        return deadline;
    }

    /** kubelet's plugin watcher called {@code GetInfo}: returns true when this confirmed the watcher. */
    synchronized boolean getInfoCalled(String resource) {
        if (mode != Mode.PROBING) {
            return false;
        }
        mode = Mode.WATCHER;
        how = "auto → watcher: kubelet called GetInfo (" + resource + ")";
        return true;
    }

    /** The deadline passed: returns true when this made the host fall back to classic registration. */
    synchronized boolean deadlinePassed() {
        if (mode != Mode.PROBING) {
            return false;
        }
        mode = Mode.CLASSIC;
        how = "auto → classic: no GetInfo within " + seconds();
        return true;
    }

    synchronized Mode mode() {
        return mode;
    }

    /** For {@code /status} and the log, e.g. {@code auto → classic: no GetInfo within 3s}. */
    synchronized String describe() {
        return how;
    }

    private String seconds() {
        long ms = deadline.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
