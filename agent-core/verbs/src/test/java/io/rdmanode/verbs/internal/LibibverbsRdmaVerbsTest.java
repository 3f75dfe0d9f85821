// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.rdmanode.verbs.AsyncEventListener;
import io.rdmanode.verbs.RdmaVerbs;
import io.rdmanode.verbs.VerbsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import jnr.ffi.LibraryLoader;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Real libibverbs (Debian libibverbs1) on a host without RDMA devices: the list is empty, not an error; a
 * missing library is named. The device and event paths on real devices run in the Soft-RoCE VM
 * (discovery's {@code VerbsSoftRoceIT}).
 */
class LibibverbsRdmaVerbsTest {

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
        try (RdmaVerbs.Owned verbs = LibibverbsRdmaVerbs.load(RdmaVerbs.LIBRARY)) {
            assertThat(verbs.unavailableReason()).isEmpty();
            assertThat(verbs.deviceNames()).isEmpty();
            assertThat(verbs.devices().devices()).isEmpty();
            assertThat(verbs.devices().failures()).isEmpty();
        }
    }

    @Test
    void describesErrnoThroughLibc() {
        try (LibibverbsRdmaVerbs verbs = LibibverbsRdmaVerbs.load(RdmaVerbs.LIBRARY)) {
            assertThat(verbs.describe(13)).isEqualTo("Permission denied (errno 13)");
        }
    }

    @Test
    void aMissingLibraryIsNamedAndEveryCallSaysSo() {
        try (RdmaVerbs.Owned verbs = LibibverbsRdmaVerbs.load("libibverbs-not-installed.so.1")) {
            assertThat(verbs.unavailableReason()).contains("libibverbs-not-installed.so.1 not found: cannot open"
                    + " shared object file: No such file or directory");
            assertThatThrownBy(verbs::devices).isInstanceOf(VerbsException.class)
                    .hasMessage(verbs.unavailableReason().orElseThrow());
            assertThatThrownBy(() -> verbs.addAsyncEventListener(e -> { })).isInstanceOf(VerbsException.class);
            assertThat(verbs.asyncEventDevices()).isEmpty();
        }
    }

    /** The event thread runs while a listener is registered, watches no device here, and stops with the last one. */
    @Test
    void asyncEventThreadRunsWhileListenedToAndStopsAfterwards() {
        try (RdmaVerbs.Owned verbs = LibibverbsRdmaVerbs.load(RdmaVerbs.LIBRARY)) {
            AsyncEventListener a = e -> { };
            AsyncEventListener b = e -> { };
            verbs.addAsyncEventListener(a);
            verbs.addAsyncEventListener(b);
            await().atMost(Duration.ofSeconds(5)).until(() -> eventThreads() == 1);
            verbs.refreshAsyncEventDevices();
            assertThat(verbs.asyncEventDevices()).isEmpty();

            verbs.removeAsyncEventListener(a);
            assertThat(eventThreads()).isEqualTo(1);
            verbs.removeAsyncEventListener(b);
            await().atMost(Duration.ofSeconds(5)).until(() -> eventThreads() == 0);
            assertThat(((LibibverbsRdmaVerbs) verbs).asyncEventFailure()).isEmpty();
        }
    }

    /**
     * The fallback for a libibverbs without {@code _ibv_query_gid_table} relies on jnr binding a missing symbol
     * lazily: loading succeeds, the call fails.
     */
    @Test
    void jnrFailsOnAMissingSymbolOnlyWhenItIsCalled() {
        NotInLibibverbs lib = LibraryLoader.create(NotInLibibverbs.class).failImmediately().load(RdmaVerbs.LIBRARY);

        assertThatThrownBy(lib::ibv_no_such_function_in_any_version).isInstanceOf(UnsatisfiedLinkError.class);
    }

    public interface NotInLibibverbs {
        int ibv_no_such_function_in_any_version();
    }

    private static long eventThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("rdma-agent-verbs-events") && t.isAlive()).count();
    }
}
