// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs.internal;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import io.rdmanode.verbs.AsyncEventListener;
import io.rdmanode.verbs.IbvDevice;
import io.rdmanode.verbs.IbvDeviceListing;
import io.rdmanode.verbs.RdmaVerbs;
import io.rdmanode.verbs.VerbsException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link RdmaVerbs} service: loads libibverbs on first use, not on activation. Binding the library through
 * jnr-ffi generates its stubs (about 100 ms of the agent's start on this project's machine), and a node whose
 * discovery reads sysfs and has no live RDMA device (the demo host) never needs it; on a live host discovery's
 * first call (subscribing to async events) loads it. {@code /status} and the health check report the state
 * without loading it. Without the library the service is still
 * registered and says why in {@link #unavailableReason()} and {@code /status}: the sysfs discovery backend
 * needs no verbs, and the agent must not fail for it. {@code /healthz} fails only when the async-event thread
 * died, since port events then silently wait for the periodic rescan.
 */
@Component(service = {RdmaVerbs.class, StatusSection.class, HealthCheck.class}, immediate = true)
public final class VerbsComponent implements RdmaVerbs, StatusSection, HealthCheck {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsComponent.class);

    private volatile LibibverbsRdmaVerbs loaded;
    private boolean stopped;

    @Activate
    public VerbsComponent() {
        LOG.debug("verbs service ready; libibverbs is loaded on first use");
    }

    /** The library binding, loaded by the first caller. */
    private LibibverbsRdmaVerbs verbs() {
        LibibverbsRdmaVerbs v = loaded;
        if (v != null) {
            return v;
        }
        synchronized (this) {
            if (loaded == null) {
                if (stopped) {
                    throw new VerbsException("the verbs service is stopped");
                }
                LibibverbsRdmaVerbs l = LibibverbsRdmaVerbs.load(LIBRARY);
                l.unavailableReason().ifPresentOrElse(
                        why -> LOG.info("libibverbs unavailable, verbs calls will fail: {}", why),
                        () -> LOG.info("libibverbs loaded library={}", LIBRARY));
                loaded = l;
            }
            return loaded;
        }
    }

    @Deactivate
    synchronized void stop() {
        stopped = true;
        if (loaded != null) {
            loaded.close();
        }
    }

    @Override
    public Optional<String> unavailableReason() {
        return verbs().unavailableReason();
    }

    @Override
    public List<String> deviceNames() {
        return verbs().deviceNames();
    }

    @Override
    public IbvDeviceListing devices() {
        return verbs().devices();
    }

    @Override
    public IbvDeviceListing devices(Function<String, Optional<IbvDevice>> cached) {
        return verbs().devices(cached);
    }

    @Override
    public long contextsOpened() {
        LibibverbsRdmaVerbs v = loaded;
        return v == null ? 0 : v.contextsOpened();
    }

    @Override
    public boolean gidTypesAvailable() {
        return verbs().gidTypesAvailable();
    }

    @Override
    public void useLegacyGidQuery() {
        verbs().useLegacyGidQuery();
    }

    @Override
    public void addAsyncEventListener(AsyncEventListener listener) {
        verbs().addAsyncEventListener(listener);
    }

    @Override
    public void removeAsyncEventListener(AsyncEventListener listener) {
        LibibverbsRdmaVerbs v = loaded;
        if (v != null) {                                    // nothing to remove from a library never loaded
            v.removeAsyncEventListener(listener);
        }
    }

    @Override
    public void refreshAsyncEventDevices() {
        verbs().refreshAsyncEventDevices();
    }

    @Override
    public Set<String> asyncEventDevices() {
        LibibverbsRdmaVerbs v = loaded;
        return v == null ? Set.of() : v.asyncEventDevices();
    }

    @Override
    public long asyncEventsReceived() {
        LibibverbsRdmaVerbs v = loaded;
        return v == null ? 0 : v.asyncEventsReceived();
    }

    @Override
    public String name() {
        return "verbs";
    }

    @Override
    public Object status() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("library", LIBRARY);
        LibibverbsRdmaVerbs v = loaded;
        if (v == null) {
            s.put("loaded", false);
            return s;
        }
        s.put("loaded", true);
        s.put("available", v.unavailableReason().isEmpty());
        v.unavailableReason().ifPresent(why -> s.put("unavailableReason", why));
        s.put("asyncEventDevices", v.asyncEventDevices().stream().sorted().toList());
        s.put("asyncEventsReceived", v.asyncEventsReceived());
        v.asyncEventFailure().ifPresent(why -> s.put("asyncEventFailure", why));
        return s;
    }

    @Override
    public Kind kind() {
        return Kind.ALIVE;
    }

    @Override
    public HealthStatus check() {
        LibibverbsRdmaVerbs v = loaded;
        if (v == null) {
            return HealthStatus.ok("libibverbs not loaded: nothing has needed verbs yet");
        }
        return v.asyncEventFailure().map(why -> HealthStatus.failing("verbs async-event thread stopped: " + why))
                .orElseGet(() -> HealthStatus.ok(v.unavailableReason().map(why -> "libibverbs unavailable: " + why)
                        .orElse("libibverbs loaded, async events from " + v.asyncEventDevices().size()
                                + " devices")));
    }
}
