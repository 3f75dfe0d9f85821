// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DevicePathsTest {

    private static DeviceFile file(String rel, boolean present) {
        return new DeviceFile("uverbs", rel, Path.of("/agent/reads/dev").resolve(rel),
                present ? Optional.empty() : Optional.of("module not loaded"));
    }

    @Test
    void containerPathIsAlwaysUnderDevAndHostPathUnderHostDevRoot() {
        DevicePaths paths = new DevicePaths(Path.of("/host/dev/"));

        assertThat(paths.nodes(List.of(file("infiniband/uverbs0", true), file("infiniband/umad0", false),
                file("infiniband/uverbs0", true)), "rw"))
                .containsExactly(new DeviceNode("/dev/infiniband/uverbs0", "/host/dev/infiniband/uverbs0", "rw"));
        assertThat(DevicePaths.DEFAULT.node(file("vfio/42", true), "rw"))
                .isEqualTo(new DeviceNode("/dev/vfio/42", "/dev/vfio/42", "rw"));
    }

    @Test
    void refusesARelativeHostDevRootAndEscapingFileNames() {
        assertThatThrownBy(() -> new DevicePaths(Path.of("dev"))).hasMessageContaining("hostDevRoot 'dev'");
        assertThatThrownBy(() -> file("../etc/shadow", true)).hasMessageContaining("'../etc/shadow'");
        assertThatThrownBy(() -> file("/dev/x", true)).hasMessageContaining("relative");
    }
}
