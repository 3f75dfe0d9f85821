// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading mountinfo and /proc/net/dev as a DaemonSet's container sees them (fixtures), and a recording. */
class KernelViewTest {

    private static List<String> fixture(String name) throws Exception {
        return Files.readAllLines(Path.of(KernelViewTest.class.getResource("/fixtures/proc/" + name).toURI()));
    }

    @Test
    void theMountPointsTypeIsFoundWithEscapesAndNestedMountsApart() throws Exception {
        List<String> mountinfo = fixture("mountinfo-daemonset.txt");
        assertThat(KernelView.mountType(mountinfo, Path.of("/host/sys"))).contains("sysfs");
        assertThat(KernelView.mountType(mountinfo, Path.of("/host/sys/kernel/security"))).contains("securityfs");
        assertThat(KernelView.mountType(mountinfo, Path.of("/mnt/odd sys"))).contains("sysfs");
        assertThat(KernelView.mountType(mountinfo, Path.of("/opt/recorded host/sys"))).contains("ext4");
        assertThat(KernelView.mountType(mountinfo, Path.of("/host"))).isEmpty();
    }

    @Test
    void procNetDevNamesSkipTheHeaders() throws Exception {
        assertThat(KernelView.procNetDevNames(fixture("net-dev.txt")))
                .containsExactly("enp59s0f0np0", "ens1f0v3", "lo");
    }

    @Test
    void slashSysIsTheKernelsAndThisNamespaces() {
        KernelView v = KernelView.of(SysfsRoot.of("/sys", "/dev"));
        assertThat(v.eventsApply()).isTrue();
    }

    @Test
    void anUnpackedRecordingIsNotTheKernel(@TempDir Path tmp) throws Exception {
        Files.createDirectories(tmp.resolve("sys/class/net/lo"));
        KernelView v = KernelView.of(SysfsRoot.of(tmp.resolve("sys").toString(), "/dev"));
        assertThat(v.runningKernel()).isFalse();
        assertThat(v.eventsApply()).isFalse();
        assertThat(v.description()).contains("not a sysfs mount", "a recording");
    }

    @Test
    void aMissingRootSaysSo(@TempDir Path tmp) {
        KernelView v = KernelView.of(SysfsRoot.of(tmp.resolve("nowhere").toString(), "/dev"));
        assertThat(v.runningKernel()).isFalse();
        assertThat(v.description()).contains("unreadable");
    }
}
