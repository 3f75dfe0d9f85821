// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import io.rdmanode.discovery.internal.events.DiscoveryEngine;
import io.rdmanode.discovery.internal.verbs.VerbsEventHints;
import io.rdmanode.verbs.RdmaVerbs;
import io.rdmanode.verbs.VerbsException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discovery's tie to the optional verbs bundle. The sysfs backend needs nothing from it; when it is there, every
 * device's async events (port up/down, GID changes, device fatal) trigger a rescan of that device on a live
 * host, and the verbs backend queries through it. Thread-safe: SCR binds from its threads, the engine reads
 * from the scan thread.
 */
final class VerbsLink {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsLink.class);

    private final DiscoveryEngine engine;
    private volatile boolean liveHost;
    private volatile boolean verbsBackend;
    private final VerbsEventHints events;
    private volatile RdmaVerbs verbs;

    VerbsLink(DiscoveryEngine engine, boolean liveHost, boolean verbsBackend) {
        this.engine = engine;
        this.liveHost = liveHost;
        this.verbsBackend = verbsBackend;
        this.events = new VerbsEventHints(engine::requestScan);
        engine.addListener((snapshot, diff) -> {
            RdmaVerbs v = verbs;
            if (v != null && !diff.devicesAdded().isEmpty()) {
                v.refreshAsyncEventDevices();                   // a new device's port events, from now on
            }
        });
    }

    /** Another backend or root: async events are listened to on a live host only. */
    void retarget(boolean live, boolean backend) {
        RdmaVerbs v = verbs;
        if (v != null && liveHost && !live) {
            v.removeAsyncEventListener(events);
        }
        boolean wasLive = liveHost;
        liveHost = live;
        verbsBackend = backend;
        if (v != null && live && !wasLive) {
            try {
                v.addAsyncEventListener(events);
            } catch (VerbsException e) {
                LOG.info("verbs async events unavailable ({})", e.getMessage());
            }
        }
    }

    /** The bound verbs service, null while there is none. */
    RdmaVerbs current() {
        return verbs;
    }

    void bind(RdmaVerbs v) {
        verbs = v;
        if (liveHost) {
            try {
                v.addAsyncEventListener(events);
            } catch (VerbsException e) {
                LOG.info("verbs async events unavailable ({}): InfiniBand port changes wait for the periodic rescan",
                        e.getMessage());
            }
        }
        if (verbsBackend) {
            engine.rescanSoon();
        }
    }

    void unbind(RdmaVerbs v) {
        v.removeAsyncEventListener(events);
        if (verbs == v) {
            verbs = null;
            if (verbsBackend) {
                engine.rescanSoon();
            }
        }
    }

    long eventsReceived() {
        return events.received();
    }

    /** The devices whose async events are listened to now, sorted. */
    List<String> eventDevices() {
        RdmaVerbs v = verbs;
        return v == null ? List.of() : v.asyncEventDevices().stream().sorted().toList();
    }

    void close() {
        RdmaVerbs v = verbs;
        if (v != null) {
            v.removeAsyncEventListener(events);
        }
    }
}
