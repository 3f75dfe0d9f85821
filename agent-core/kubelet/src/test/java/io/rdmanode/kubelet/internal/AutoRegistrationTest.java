// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The decision {@code registration = auto} makes once, and how {@code /status} words it. */
class AutoRegistrationTest {

    private static HostSettings settings(HostSettings.Registration mode) {
        return new HostSettings(Path.of("/dp"), Path.of("/dp/kubelet.sock"), 5000, 5000, 5000, 1, mode,
                Path.of("/reg"), 2500);
    }

    @Test
    void autoWithTheRegistryDirectoryIsOnProbationUntilGetInfoOrTheDeadline() {
        AutoRegistration confirmed = new AutoRegistration(settings(HostSettings.Registration.AUTO),
                settings(HostSettings.Registration.WATCHER));
        AutoRegistration fellBack = new AutoRegistration(settings(HostSettings.Registration.AUTO),
                settings(HostSettings.Registration.WATCHER));

        assertThat(confirmed.mode()).isEqualTo(AutoRegistration.Mode.PROBING);
        assertThat(confirmed.startProbe()).isTrue();
        assertThat(confirmed.startProbe()).as("one deadline for every pool").isFalse();
        assertThat(confirmed.getInfoCalled("rdma/a")).isTrue();
        assertThat(confirmed.deadlinePassed()).as("decided once").isFalse();
        assertThat(confirmed.describe()).isEqualTo("auto → watcher: kubelet called GetInfo (rdma/a)");

        assertThat(fellBack.deadlinePassed()).isTrue();
        assertThat(fellBack.getInfoCalled("rdma/a")).as("a late GetInfo changes nothing").isFalse();
        assertThat(fellBack.mode()).isEqualTo(AutoRegistration.Mode.CLASSIC);
        assertThat(fellBack.describe()).isEqualTo("auto → classic: no GetInfo within 2500ms");
    }

    @Test
    void explicitModesAndAutoWithoutTheDirectoryAreDecidedAtOnce() {
        assertThat(new AutoRegistration(settings(HostSettings.Registration.WATCHER),
                settings(HostSettings.Registration.WATCHER)).describe()).isEqualTo("watcher");
        assertThat(new AutoRegistration(settings(HostSettings.Registration.CLASSIC),
                settings(HostSettings.Registration.CLASSIC)).describe()).isEqualTo("classic");
        AutoRegistration noDirectory = new AutoRegistration(settings(HostSettings.Registration.AUTO),
                settings(HostSettings.Registration.CLASSIC));
        assertThat(noDirectory.describe()).isEqualTo("auto → classic: /reg absent");
        assertThat(noDirectory.startProbe()).isFalse();
        assertThat(noDirectory.deadlinePassed()).isFalse();
    }
}
