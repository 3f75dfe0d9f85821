// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs.internal;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import io.rdmanode.verbs.AsyncEventListener;
import io.rdmanode.verbs.IbvDevice;
import io.rdmanode.verbs.IbvDeviceListing;
import io.rdmanode.verbs.RdmaVerbs;
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
 * The {@link RdmaVerbs} service: loads libibverbs on activation. Without the library the service is still
 * registered and says why in {@link #unavailableReason()} and {@code /status}: the sysfs discovery backend
 * needs no verbs, and the agent must not fail for it. {@code /healthz} fails only when the async-event thread
 * died, since port events then silently wait for the periodic rescan.
 */
@Component(service = {RdmaVerbs.class, StatusSection.class, HealthCheck.class}, immediate = true)
public final class VerbsComponent implements RdmaVerbs, StatusSection, HealthCheck {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsComponent.class);

    private final LibibverbsRdmaVerbs verbs;

    @Activate
    public VerbsComponent() {
        this.verbs = LibibverbsRdmaVerbs.load(LIBRARY);
        verbs.unavailableReason().ifPresentOrElse(
                why -> LOG.info("libibverbs unavailable, verbs calls will fail: {}", why),
                () -> LOG.info("libibverbs loaded library={}", LIBRARY));
    }

    @Deactivate
    void stop() {
        verbs.close();
    }

    @Override
    public Optional<String> unavailableReason() {
        return verbs.unavailableReason();
    }

    @Override
    public List<String> deviceNames() {
        return verbs.deviceNames();
    }

    @Override
    public IbvDeviceListing devices() {
        return verbs.devices();
    }

    @Override
    public IbvDeviceListing devices(Function<String, Optional<IbvDevice>> cached) {
        return verbs.devices(cached);
    }

    @Override
    public long contextsOpened() {
        return verbs.contextsOpened();
    }

    @Override
    public boolean gidTypesAvailable() {
        return verbs.gidTypesAvailable();
    }

    @Override
    public void useLegacyGidQuery() {
        verbs.useLegacyGidQuery();
    }

    @Override
    public void addAsyncEventListener(AsyncEventListener listener) {
        verbs.addAsyncEventListener(listener);
    }

    @Override
    public void removeAsyncEventListener(AsyncEventListener listener) {
        verbs.removeAsyncEventListener(listener);
    }

    @Override
    public void refreshAsyncEventDevices() {
        verbs.refreshAsyncEventDevices();
    }

    @Override
    public Set<String> asyncEventDevices() {
        return verbs.asyncEventDevices();
    }

    @Override
    public long asyncEventsReceived() {
        return verbs.asyncEventsReceived();
    }

    @Override
    public String name() {
        return "verbs";
    }

    @Override
    public Object status() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("library", LIBRARY);
        s.put("available", verbs.unavailableReason().isEmpty());
        verbs.unavailableReason().ifPresent(why -> s.put("unavailableReason", why));
        s.put("asyncEventDevices", verbs.asyncEventDevices().stream().sorted().toList());
        s.put("asyncEventsReceived", verbs.asyncEventsReceived());
        verbs.asyncEventFailure().ifPresent(why -> s.put("asyncEventFailure", why));
        return s;
    }

    @Override
    public Kind kind() {
        return Kind.ALIVE;
    }

    @Override
    public HealthStatus check() {
        return verbs.asyncEventFailure().map(why -> HealthStatus.failing("verbs async-event thread stopped: " + why))
                .orElseGet(() -> HealthStatus.ok(verbs.unavailableReason().map(why -> "libibverbs unavailable: " + why)
                        .orElse("libibverbs loaded, async events from " + verbs.asyncEventDevices().size()
                                + " devices")));
    }
}
