// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import java.nio.file.Files;
import java.nio.file.Path;
import jnr.ffi.LibraryLoader;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Real libibverbs (Debian libibverbs1) on a host without RDMA devices: the list is empty, not an error, and
 * the backend says it is unavailable and why. The full path runs in the Soft-RoCE VM ({@code VerbsSoftRoceIT}).
 */
class VerbsTest {

    @BeforeEach
    void needsLibibverbsAndNoRdmaDevice() {
        Assumptions.assumeTrue(Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1"))
                || Files.exists(Path.of("/usr/lib/aarch64-linux-gnu/libibverbs.so.1")),
                "libibverbs1 not installed (apt-get install libibverbs1)");
        Assumptions.assumeFalse(Files.isDirectory(Path.of("/sys/class/infiniband_verbs")),
                "this host has RDMA devices: covered by VerbsSoftRoceIT instead");
    }

    @Test
    void listsNoDeviceCleanlyWithoutHardware() {
        Verbs verbs = Verbs.load();

        assertThat(verbs.deviceNames()).isEmpty();
        Verbs.Listing listing = verbs.devices();
        assertThat(listing.devices()).isEmpty();
        assertThat(listing.failures()).isEmpty();
    }

    @Test
    void backendReportsNoDeviceAsUnavailableAndKeepsSysfsFacts() {
        VerbsTopologySource source = new VerbsTopologySource(liveSysfs());

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
        VerbsTopologySource source = new VerbsTopologySource(liveSysfs(), "libibverbs-not-installed.so.1");

        HostSnapshot s = source.scan();

        assertThat(s.backend().available()).isFalse();
        assertThat(s.backend().unavailableReason()).hasValueSatisfying(
                r -> assertThat(r).startsWith("libibverbs-not-installed.so.1 not found: "));
        assertThat(s.devices()).isEmpty();
        assertThat(s.netDevices()).isNotEmpty();
        System.out.println("verbs backend without the library: " + s.backend());
    }

    @Test
    void describesErrnoThroughLibc() {
        assertThat(Verbs.load().describe(13)).isEqualTo("Permission denied (errno 13)");
    }

    @Test
    void loadNamesTheMissingLibrary() {
        assertThatThrownBy(() -> Verbs.load("libibverbs-not-installed.so.1"))
                .isInstanceOf(VerbsException.class)
                .hasMessage("libibverbs-not-installed.so.1 not found: cannot open shared object file:"
                        + " No such file or directory");
    }

    /**
     * The fallback for a libibverbs without {@code _ibv_query_gid_table} relies on jnr binding a missing symbol
     * lazily: loading succeeds, the call fails.
     */
    @Test
    void jnrFailsOnAMissingSymbolOnlyWhenItIsCalled() {
        NotInLibibverbs lib = LibraryLoader.create(NotInLibibverbs.class).failImmediately().load(Verbs.LIBRARY);

        assertThatThrownBy(lib::ibv_no_such_function_in_any_version).isInstanceOf(UnsatisfiedLinkError.class);
    }

    public interface NotInLibibverbs {
        int ibv_no_such_function_in_any_version();
    }

    private static SysfsTopologySource liveSysfs() {
        return new SysfsTopologySource(SysfsRoot.of("/sys", "/dev"), () -> NetnsMode.unknown("not read in tests"));
    }
}
