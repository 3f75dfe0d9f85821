// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first revision, which the agent starts with: one that ConfigurationAdmin cannot store (its files are under a
 * full or read-only state directory) is reported for the start to stop on. The components ran on built-in defaults
 * instead, kubelet's real device-plugin directory among them (found by the operator probe on a full tmpfs).
 */
class ConfigReloaderStartTest {

    @Test
    void aFirstRevisionThatCannotBeStoredIsReportedAndALaterOneClearsIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("agent.conf");
        Files.writeString(file, SettledReloadTest.FULL);
        InMemoryOsgi.Admin admin = new InMemoryOsgi.Admin();
        admin.failWrites = "No space left on device";
        ConfigHistory history = new ConfigHistory(file.toString());
        ConfigReloader reloader = new ConfigReloader(file, Map.of(), () -> ConfigMapperTest.SCHEMA,
                new ConfigAdminWriter(admin.service, file.toString()), new BundleSwitches(InMemoryOsgi.context()),
                history, runtime -> { }, new ConfigValidators(InMemoryOsgi.context()), delayMs -> { });

        reloader.reloadIfChanged();

        assertThat(reloader.unwritableWithNothingInForce()).contains("No space left on device");
        assertThat(reloader.refusedWithNothingInForce()).isEmpty();
        assertThat(history.appliedCount()).isZero();

        admin.failWrites = null;
        Files.writeString(file, SettledReloadTest.EDITED);
        reloader.reloadIfChanged();
        assertThat(history.appliedCount()).isEqualTo(1);
        assertThat(reloader.unwritableWithNothingInForce()).isNull();
    }
}
