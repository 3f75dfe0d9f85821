// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.discovery.internal.DiscoveryComponent;
import io.rdmanode.verbs.AsyncEventListener;
import io.rdmanode.verbs.IbvDevice;
import io.rdmanode.verbs.IbvDeviceListing;
import io.rdmanode.verbs.RdmaVerbs;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.osgi.util.converter.Converters;

/**
 * The optional, dynamic {@link RdmaVerbs} reference on a live host ({@code sysfsRoot = /sys}): binding it
 * subscribes discovery to async events and (verbs backend) rescans with it; unbinding undoes both. The service
 * here is a test fake that lists no device, since this machine has none.
 */
class VerbsBindingTest {

    @Test
    void bindingTheVerbsServiceSubscribesAndFeedsTheVerbsBackend() throws Exception {
        DiscoveryComponent c = new DiscoveryComponent(Converters.standardConverter().convert(Map.of(
                "backend", "verbs", "rescanInterval", 0L)).to(DiscoveryComponent.Config.class));
        FakeVerbs verbs = new FakeVerbs();
        try {
            assertThat(c.snapshot().backend().unavailableReason()).contains(VerbsTopologySource.NO_VERBS_SERVICE);

            call(c, "bindVerbs", verbs);

            assertThat(verbs.listeners).hasSize(1);
            await().atMost(Duration.ofSeconds(5)).until(() -> c.snapshot().backend().unavailableReason()
                    .equals(Optional.of(VerbsTopologySource.NO_DEVICE)));

            call(c, "unbindVerbs", verbs);

            assertThat(verbs.listeners).isEmpty();
            await().atMost(Duration.ofSeconds(5)).until(() -> c.snapshot().backend().unavailableReason()
                    .equals(Optional.of(VerbsTopologySource.NO_VERBS_SERVICE)));
        } finally {
            call(c, "stop", null);
        }
    }

    /** As SCR does: the bind and lifecycle methods are package-private to their own package. */
    private static void call(DiscoveryComponent c, String name, RdmaVerbs arg) throws ReflectiveOperationException {
        Method m = arg == null ? DiscoveryComponent.class.getDeclaredMethod(name)
                : DiscoveryComponent.class.getDeclaredMethod(name, RdmaVerbs.class);
        m.setAccessible(true);
        if (arg == null) {
            m.invoke(c);
        } else {
            m.invoke(c, arg);
        }
    }

    /** libibverbs on a host without RDMA devices. */
    private static final class FakeVerbs implements RdmaVerbs {
        final List<AsyncEventListener> listeners = new CopyOnWriteArrayList<>();

        @Override
        public Optional<String> unavailableReason() {
            return Optional.empty();
        }

        @Override
        public List<String> deviceNames() {
            return List.of();
        }

        @Override
        public IbvDeviceListing devices() {
            return new IbvDeviceListing(List.of(), Map.of());
        }

        @Override
        public IbvDeviceListing devices(Function<String, Optional<IbvDevice>> cached) {
            return devices();
        }

        @Override
        public long contextsOpened() {
            return 0;
        }

        @Override
        public boolean gidTypesAvailable() {
            return true;
        }

        @Override
        public void useLegacyGidQuery() {
        }

        @Override
        public void addAsyncEventListener(AsyncEventListener listener) {
            listeners.add(listener);
        }

        @Override
        public void removeAsyncEventListener(AsyncEventListener listener) {
            listeners.remove(listener);
        }

        @Override
        public void refreshAsyncEventDevices() {
        }

        @Override
        public Set<String> asyncEventDevices() {
            return Set.of();
        }

        @Override
        public long asyncEventsReceived() {
            return 0;
        }
    }
}
