// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.Hashtable;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.startlevel.BundleStartLevel;

class StartupCheckTest {

    /** An agent bundle in {@code state}; {@code persistent}: started by the launcher (not stopped by config). */
    private static Bundle bundle(String name, int state, boolean persistent) {
        Hashtable<String, String> headers = new Hashtable<>();
        headers.put(BundleInfo.AGENT_BUNDLE_HEADER, name);
        BundleStartLevel level = (BundleStartLevel) Proxy.newProxyInstance(StartupCheckTest.class.getClassLoader(),
                new Class<?>[] {BundleStartLevel.class}, (p, m, a) -> m.getName().equals("isPersistentlyStarted")
                        ? persistent : null);
        return (Bundle) Proxy.newProxyInstance(StartupCheckTest.class.getClassLoader(), new Class<?>[] {Bundle.class},
                (p, m, a) -> switch (m.getName()) {
                    case "getHeaders" -> headers;
                    case "getState" -> state;
                    case "getSymbolicName" -> "io.rdmanode." + name;
                    case "adapt" -> level;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    @Test
    void notReadyUntilTheLauncherIsDoneAndEveryEnabledBundleIsActive() {
        AtomicBoolean launcherDone = new AtomicBoolean();
        Bundle[][] bundles = {{bundle("health", Bundle.ACTIVE, true), bundle("metrics", Bundle.RESOLVED, false)}};
        StartupCheck check = new StartupCheck(() -> bundles[0], launcherDone::get);

        assertThat(check.check().ok()).isFalse();
        assertThat(check.check().message()).contains("still starting");

        launcherDone.set(true);
        assertThat(check.check().ok()).as("metrics disabled in the config: not meant to run").isTrue();

        bundles[0] = new Bundle[] {bundle("health", Bundle.ACTIVE, true), bundle("metrics", Bundle.STARTING, true)};
        assertThat(check.check().ok()).isFalse();
        assertThat(check.check().message()).contains("io.rdmanode.metrics (STARTING)");

        bundles[0] = new Bundle[] {bundle("health", Bundle.ACTIVE, true), bundle("metrics", Bundle.ACTIVE, true)};
        assertThat(check.check().ok()).isTrue();
    }
}
