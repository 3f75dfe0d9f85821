// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import io.rdmanode.verbs.RdmaVerbs;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The verbs backend over the verbs bundle's real libibverbs (Debian libibverbs1) on a host without RDMA devices:
 * the backend says it is unavailable and why (no device, no library, no verbs service). The full path runs in the Soft-RoCE VM ({@code VerbsSoftRoceIT}).
 */
class VerbsTest {

    private static final RdmaVerbs VERBS = io.rdmanode.verbs.internal.LibibverbsRdmaVerbs.load(RdmaVerbs.LIBRARY);

    @BeforeEach
    void needsLibibverbsAndNoRdmaDevice() {
        Assumptions.assumeTrue(Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1"))
                || Files.exists(Path.of("/usr/lib/aarch64-linux-gnu/libibverbs.so.1")),
                "libibverbs1 not installed (apt-get install libibverbs1)");
        Assumptions.assumeFalse(Files.isDirectory(Path.of("/sys/class/infiniband_verbs")),
                "this host has RDMA devices: covered by VerbsSoftRoceIT instead");
    }

    @Test
    void backendReportsNoDeviceAsUnavailableAndKeepsSysfsFacts() {
        VerbsTopologySource source = new VerbsTopologySource(liveSysfs(), () -> VERBS);

        HostSnapshot s = source.scan();

        assertThat(s.backend().backend()).isEqualTo("verbs");
        assertThat(s.backend().unavailableReason()).contains(VerbsTopologySource.NO_DEVICE);
        assertThat(s.devices()).isEmpty();
        assertThat(s.netDevices()).isNotEmpty();
        assertThat(source.update(new ScanHints().netDevice("lo")).backend().unavailableReason())
                .contains(VerbsTopologySource.NO_DEVICE);
    }

    @Test
    void backendWithoutTheLibraryReportsItNotFound() {
        RdmaVerbs missing = io.rdmanode.verbs.internal.LibibverbsRdmaVerbs.load("libibverbs-not-installed.so.1");
        VerbsTopologySource source = new VerbsTopologySource(liveSysfs(), () -> missing);

        HostSnapshot s = source.scan();

        assertThat(s.backend().available()).isFalse();
        assertThat(s.backend().unavailableReason()).hasValueSatisfying(
                r -> assertThat(r).startsWith("libibverbs-not-installed.so.1 not found: "));
        assertThat(s.devices()).isEmpty();
        assertThat(s.netDevices()).isNotEmpty();
        System.out.println("verbs backend without the library: " + s.backend());
    }

    @Test
    void backendWithoutTheVerbsServiceSaysSo() {
        VerbsTopologySource source = new VerbsTopologySource(liveSysfs(), () -> null);

        assertThat(source.scan().backend().unavailableReason()).contains(VerbsTopologySource.NO_VERBS_SERVICE);
    }

    private static SysfsTopologySource liveSysfs() {
        return new SysfsTopologySource(SysfsRoot.of("/sys", "/dev"), () -> NetnsMode.unknown("not read in tests"));
    }
}
