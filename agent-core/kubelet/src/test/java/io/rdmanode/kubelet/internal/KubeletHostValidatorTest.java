// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.agent.testing.Proposals;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the device-plugin host refuses, refused before it applies, with the limit or the accepted forms. */
class KubeletHostValidatorTest {

    private static List<ConfigValidator.Refusal> validate(Map<String, Object> kubelet) {
        return new KubeletHostValidator().validate(Proposals.of(KubeletHostComponent.PID, kubelet));
    }

    @Test
    void defaultsAndShortAbsoluteDirectoriesPass() {
        assertThat(validate(Map.of())).isEmpty();
        assertThat(validate(Map.of("pluginDir", "/var/lib/kubelet/device-plugins", "registration", "classic")))
                .isEmpty();
    }

    @Test
    void unknownRegistrationModeIsRefusedWithTheAcceptedForms() {
        assertThat(validate(Map.of("registration", "sometimes"))).containsExactly(new ConfigValidator.Refusal(
                KubeletHostComponent.PID, "registration",
                "registration = \"sometimes\" is not one of auto, classic, watcher"));
    }

    @Test
    void socketDirectoryLongerThanSunPathAllowsIsRefusedInBytes() {
        String deep = "/var/lib/" + "é".repeat(49);                 // 58 characters, 107 bytes
        assertThat(deep.length()).isLessThanOrEqualTo(ResourceNames.MAX_SOCKET_DIR);

        assertThat(validate(Map.of("pluginsRegistryDir", deep))).singleElement().satisfies(r -> {
            assertThat(r.property()).isEqualTo("pluginsRegistryDir");
            assertThat(r.message()).contains("at most " + ResourceNames.MAX_SOCKET_DIR + " bytes")
                    .contains("sun_path (107 bytes)");
        });
    }

    @Test
    void relativeDirectoryAndOverlongKubeletSocketAreRefused() {
        assertThat(validate(Map.of("pluginDir", "device-plugins"))).extracting(ConfigValidator.Refusal::message)
                .containsExactly("pluginDir 'device-plugins' must be an absolute path, e.g. /var/lib/kubelet/"
                        + "device-plugins");
        String socket = "k".repeat(100) + ".sock";
        assertThat(validate(Map.of("pluginDir", "/var/lib/kubelet", "kubeletSocket", socket)))
                .extracting(ConfigValidator.Refusal::property, ConfigValidator.Refusal::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("kubeletSocket", "kubeletSocket '"
                        + Path.of("/var/lib/kubelet", socket) + "' is 122 bytes long; a Unix socket path has 1 to"
                        + " 107 bytes"));
    }

    @Test
    void podResourcesSocketMustBeAbsoluteAndFitSunPath() {
        assertThat(validate(Map.of("podResourcesSocket", "/run/kubelet/pod-resources/kubelet.sock"))).isEmpty();
        assertThat(validate(Map.of("podResourcesSocket", "pod-resources/kubelet.sock")))
                .extracting(ConfigValidator.Refusal::property, ConfigValidator.Refusal::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("podResourcesSocket", "podResourcesSocket"
                        + " 'pod-resources/kubelet.sock' must be an absolute path, e.g."
                        + " /var/lib/kubelet/pod-resources/kubelet.sock"));
        String deep = "/var/lib/kubelet/" + "p".repeat(100) + ".sock";
        assertThat(validate(Map.of("podResourcesSocket", deep))).extracting(ConfigValidator.Refusal::message)
                .containsExactly("podResourcesSocket '" + deep + "' is 122 bytes long; a Unix socket path has 1 to"
                        + " 107 bytes");
    }

    @Test
    void identityNamesWhatRebuildsTheHostAndTuningWhatDoesNot() {
        HostSettings a = new HostSettings(Path.of("/d"), Path.of("/d/kubelet.sock"), 5000, 5000, 5000, 2);
        HostSettings tuned = new HostSettings(Path.of("/d"), Path.of("/d/kubelet.sock"), 7000, 1000, 150, 2);
        HostSettings moved = new HostSettings(Path.of("/e"), Path.of("/e/kubelet.sock"), 5000, 5000, 5000, 2);

        assertThat(tuned.identity()).isEqualTo(a.identity());
        assertThat(tuned.tuning()).isNotEqualTo(a.tuning());
        assertThat(moved.identity()).isNotEqualTo(a.identity());
        assertThat(a.sameSockets(tuned)).isTrue();
        assertThat(a.sameSockets(moved)).isFalse();
    }
}
