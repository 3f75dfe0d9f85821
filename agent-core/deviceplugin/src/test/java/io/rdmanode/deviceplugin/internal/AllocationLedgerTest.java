// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import io.rdmanode.deviceplugin.testing.TinyTmpfs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The allocation ledger's file and its reconciliation with what kubelet lists. */
class AllocationLedgerTest {

    @TempDir
    Path dir;
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-25T08:00:00Z"));
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };

    private AllocationLedger ledger() {
        return AllocationLedger.at(dir.resolve("state/allocations"), clock);
    }

    private static AllocationLedger.Holding pod(String resource, String id, String holder) {
        return new AllocationLedger.Holding(resource, id, holder);
    }

    @Test
    void whatAllocateRecordsSurvivesARestart() {
        AllocationLedger first = ledger();
        assertThat(first.allocated("rdma/a", List.of("0000:3b:00.2", "0000:3b:00.3"))).hasSize(2);
        assertThat(first.allocated("rdma/a", List.of("0000:3b:00.2"))).isEmpty();          // the next container

        AllocationLedger again = ledger();
        assertThat(again.heldBy()).containsExactlyInAnyOrderEntriesOf(Map.of("0000:3b:00.2", "rdma/a",
                "0000:3b:00.3", "rdma/a"));
        assertThat(again.problem()).isEmpty();
        assertThat(dir.resolve("state")).isDirectoryNotContaining("glob:**.tmp");
    }

    @Test
    void kubeletsAnswerNamesTheHoldersAndReleasesWhatItNoLongerLists() {
        AllocationLedger ledger = ledger();
        ledger.allocated("rdma/a", List.of("0000:3b:00.2", "0000:3b:00.3"));

        AllocationLedger.Change first = ledger.reconcile(List.of(pod("rdma/a", "0000:3b:00.2", "default/p1/c"),
                pod("nvidia.com/gpu", "GPU-1", "default/p1/c")));
        assertThat(first.released()).isEmpty();                 // 00.3: allocated just now, not listed yet
        assertThat(ledger.heldBy()).containsEntry("GPU-1", "nvidia.com/gpu").containsKey("0000:3b:00.3");
        assertThat(ledger.entries()).filteredOn(e -> e.deviceId().equals("0000:3b:00.2"))
                .extracting(AllocationLedger.Entry::holder).containsExactly("default/p1/c");

        now.set(now.get().plus(AllocationLedger.GRACE));
        AllocationLedger.Change later = ledger.reconcile(List.of(pod("rdma/a", "0000:3b:00.2", "default/p1/c")));
        assertThat(later.released()).extracting(AllocationLedger.Entry::deviceId)
                .containsExactlyInAnyOrder("0000:3b:00.3", "GPU-1");

        AllocationLedger.Change gone = ledger.reconcile(List.of());     // listed before: released at once
        assertThat(gone.released()).extracting(AllocationLedger.Entry::deviceId).containsExactly("0000:3b:00.2");
        assertThat(ledger().heldBy()).isEmpty();
    }

    @Test
    void aTruncatedOrEditedFileIsNotTrustedAndSaysSo() throws IOException {
        AllocationLedger ledger = ledger();
        ledger.allocated("rdma/a", List.of("0000:3b:00.2", "0000:3b:00.3"));
        Path file = dir.resolve("state/allocations");
        String whole = Files.readString(file);

        Files.writeString(file, whole.substring(0, whole.length() - 12));
        AllocationLedger truncated = ledger();
        assertThat(truncated.problem()).contains("not trusted").contains("rebuilt from kubelet's PodResources");
        // Until kubelet was asked nothing is known free: every device counts as held (dist AllocationStateIT saw
        // a VF a pod held offered under another resource in that window).
        assertThat(truncated.heldBy()).isEmpty();
        assertThat(truncated.heldBy().get("0000:3b:00.2")).isEqualTo(AllocationLedger.UNKNOWN);
        assertThat(truncated.heldBy().getOrDefault("0000:3b:00.9", "rdma/a")).isEqualTo(AllocationLedger.UNKNOWN);
        assertThat(truncated.reconcile(List.of(new AllocationLedger.Holding("rdma/a", "0000:3b:00.2", "ns/p/c")))
                .any()).as("the first reconciliation changes what is offered").isTrue();
        assertThat(truncated.heldBy()).containsExactly(java.util.Map.entry("0000:3b:00.2", "rdma/a"));
        assertThat(truncated.reconcile(List.of(new AllocationLedger.Holding("rdma/a", "0000:3b:00.2", "ns/p/c")))
                .any()).isFalse();

        Files.writeString(file, whole.replace("rdma/a", "rdma/b"));
        assertThat(ledger().problem()).contains("checksum does not match");

        Files.writeString(file, "");
        assertThat(ledger().problem()).contains("truncated");
    }

    /** A full file system (a 64 KiB tmpfs): a clear error, the previous file intact, no temporary file left. */
    @Test
    void aFullFileSystemLeavesThePreviousFileAndNoTemporaryOne() throws Exception {
        Path mount = Files.createDirectories(dir.resolve("small"));
        org.junit.jupiter.api.Assumptions.assumeTrue(TinyTmpfs.mount(mount, "64k"), "needs root to mount a tmpfs");
        try {
            AllocationLedger ledger = AllocationLedger.at(mount.resolve("allocations"), clock);
            ledger.allocated("rdma/a", List.of("0000:3b:00.2"));
            String before = Files.readString(mount.resolve("allocations"));
            TinyTmpfs.fill(mount);

            List<String> many = java.util.stream.IntStream.range(0, 2000).mapToObj(i -> "0000:99:" + i).toList();
            assertThatThrownBy(() -> ledger.allocated("rdma/a", many)).isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("cannot write allocation ledger " + mount.resolve("allocations"));

            assertThat(Files.readString(mount.resolve("allocations"))).isEqualTo(before);
            assertThat(mount).isDirectoryNotContaining("glob:**.tmp");
            assertThat(ledger.problem()).contains("No space left on device");
        } finally {
            TinyTmpfs.unmount(mount);
        }
    }

    @Test
    void aThousandHeldDevicesRoundTrip() {
        AllocationLedger ledger = ledger();
        List<AllocationLedger.Holding> running = java.util.stream.IntStream.range(0, 1024)
                .mapToObj(i -> pod("rdma/vf", String.format("0000:%02x:%02x.%d", 0x3b + i / 128, i % 128 / 8, i % 8),
                        "ns/p" + i + "/c")).toList();
        assertThat(ledger.reconcile(running).added()).hasSize(1024);
        assertThat(ledger().heldBy()).hasSize(1024);
    }
}
