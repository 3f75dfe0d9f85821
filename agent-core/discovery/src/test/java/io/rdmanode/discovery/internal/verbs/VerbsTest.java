// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Real libibverbs (Debian libibverbs1): on a host without RDMA devices the list is empty, not an error. */
class VerbsTest {

    @Test
    void listsNoDeviceCleanlyWithoutHardware() {
        Assumptions.assumeTrue(Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1"))
                || Files.exists(Path.of("/usr/lib/aarch64-linux-gnu/libibverbs.so.1")), "libibverbs1 not installed");
        Assumptions.assumeFalse(Files.isDirectory(Path.of("/sys/class/infiniband_verbs")), "host has RDMA devices");

        List<String> names = Verbs.load().deviceNames();

        assertThat(names).isEmpty();
    }

    @Test
    void backendReportsItselfUnavailableWithTheReasonAndKeepsSysfsFacts() {
        SysfsTopologySource sysfs = new SysfsTopologySource(SysfsRoot.of("/sys", "/dev"), () -> NetnsMode.unknown("t"));
        HostSnapshot s = new VerbsTopologySource(sysfs).scan();

        if (!s.backend().available()) {
            assertThat(s.backend().unavailableReason()).hasValueSatisfying(r -> assertThat(r).isNotBlank());
            assertThat(s.devices()).isEmpty();
        }
        assertThat(s.netDevices()).isNotEmpty();
        System.out.println("verbs backend here: " + s.backend());
    }
}
