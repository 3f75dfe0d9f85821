// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.ServedResource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Socket paths against {@code sun_path} (issue 8, item 1), from a working directory nested deeper than any
 * Unix socket path may be, as a checkout in a deep directory is: the longest resource name kubelet accepts
 * registers for real, and a device-plugins directory too deep for any socket is refused with the reason.
 */
class DeepPathTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path temp;

    private Path deepWorkDir() throws IOException {
        Path deep = temp;
        while (deep.toString().length() <= 120) {
            deep = deep.resolve("nested-checkout-dir");
        }
        return Files.createDirectories(deep);
    }

    /** Sockets go to a short directory of their own, whatever the depth of the work directory. */
    private static Path shortSocketDir() throws IOException {
        return Files.createTempDirectory(Path.of("/tmp"), "dp");
    }

    @Test
    void theLongestResourceNameRegistersForRealFromADeepWorkDirectory() throws IOException {
        Path work = deepWorkDir();
        Path sockets = shortSocketDir();
        String resource = ResourceNamesTest.longestResourceName('z');
        try (FakeKubelet kubelet = new FakeKubelet(sockets).start();
             KubeletDevicePluginHost host = new KubeletDevicePluginHost(new HostSettings(sockets,
                     kubelet.socket(), 2000, 2000, 60_000, 1))) {
            ServedResource served = host.serve(new TestPlugin(resource, List.of(new Device("d-0", true, List.of()))));

            FakeKubelet.Registration r = kubelet.awaitRegistrations(resource, 1, WAIT);
            assertThat(served.socket()).isEqualTo(sockets.resolve(r.endpoint()));
            assertThat(kubelet.plugin(resource).allocate(List.of("d-0")).getContainerResponsesCount()).isEqualTo(1);
            Files.writeString(work.resolve("registered.txt"), r.endpoint());
            assertThat(work.toString().length()).isGreaterThan(110);
        } finally {
            try (Stream<Path> files = Files.walk(sockets)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void aDirectoryTooDeepForAnySocketIsRefusedWithTheReason() throws IOException {
        Path deep = deepWorkDir().resolve("device-plugins");
        Files.createDirectories(deep);
        try (KubeletDevicePluginHost host = new KubeletDevicePluginHost(new HostSettings(deep,
                deep.resolve("kubelet.sock"), 2000, 2000, 60_000, 1))) {
            assertThat(host.problem()).hasValueSatisfying(p -> assertThat(p).contains(deep.toString())
                    .contains("sun_path"));
            assertThatThrownBy(() -> host.serve(new TestPlugin("rdma/a", List.of())))
                    .isInstanceOfSatisfying(DevicePluginException.class, e -> {
                        assertThat(e.code()).isEqualTo(DevicePluginException.Code.UNAVAILABLE);
                        assertThat(e.getMessage()).contains("rdma/a").contains("sun_path");
                    });
            assertThat(host.status()).containsKey("error");
            try (Stream<Path> files = Files.list(deep)) {
                assertThat(files).isEmpty();
            }
        }
    }
}
