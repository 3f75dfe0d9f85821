// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger's group commit: concurrent Allocates share writes, and every one of them is in the file when it
 * returns, also with two instances writing one file during a handover.
 */
class AllocationLedgerGroupCommitTest {

    private static final int THREADS = 50;
    private static final int CALLS = 20;

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("state/allocations");
    }

    private static String id(int thread, int call) {
        return String.format("0000:%02x:%02x.%d", thread, call / 8, call % 8);
    }

    @Test
    void everyConcurrentAllocateIsInTheFileWhenItReturns() throws Exception {
        AllocationLedger ledger = AllocationLedger.at(file(), Clock.systemUTC());
        List<String> missingAtReturn = allocateFromThreads(List.of(ledger), THREADS);

        assertThat(missingAtReturn).isEmpty();
        assertThat(AllocationLedger.read(file())).hasSize(THREADS * CALLS);
        AllocationLedger again = AllocationLedger.at(file(), Clock.systemUTC());
        assertThat(again.problem()).isEmpty();
        assertThat(again.heldBy()).hasSize(THREADS * CALLS);
        assertThat(dir.resolve("state")).isDirectoryNotContaining("glob:**.tmp");
    }

    @Test
    void twoInstancesWritingAtOnceDuringAHandoverKeepEachOthersRecords() throws Exception {
        AllocationLedger predecessor = AllocationLedger.at(file(), Clock.systemUTC());
        AllocationLedger successor = AllocationLedger.at(file(), Clock.systemUTC());

        List<String> missingAtReturn = allocateFromThreads(List.of(predecessor, successor), THREADS);

        assertThat(missingAtReturn).isEmpty();
        assertThat(AllocationLedger.read(file())).hasSize(THREADS * CALLS);
        successor.mergeWrittenElsewhere();
        assertThat(successor.heldBy()).hasSize(THREADS * CALLS);
    }

    @Test
    void anIdAnotherAllocateJustRecordedIsOnDiskBeforeTheSecondReturns() throws Exception {
        AllocationLedger ledger = AllocationLedger.at(file(), Clock.systemUTC());
        ledger.record("rdma/a", List.of("0000:3b:00.2"));          // first Allocate: recorded, write not done yet

        assertThat(ledger.allocated("rdma/a", List.of("0000:3b:00.2"))).isEmpty();   // the second one
        assertThat(AllocationLedger.read(file())).extracting(AllocationLedger.Entry::deviceId)
                .containsExactly("0000:3b:00.2");
    }

    /** What Allocate may answer without the ledger's lock: held under that resource and on disk, nothing less. */
    @Test
    void anIdIsHeldWithoutATurnOnlyOnceItsRecordIsOnDisk() throws Exception {
        AllocationLedger ledger = AllocationLedger.at(file(), Clock.systemUTC());
        assertThat(ledger.held("rdma/a", List.of("0000:3b:00.2"))).isFalse();

        ledger.record("rdma/a", List.of("0000:3b:00.2"));          // recorded, its write not done yet
        assertThat(ledger.held("rdma/a", List.of("0000:3b:00.2"))).isFalse();

        ledger.allocated("rdma/a", List.of("0000:3b:00.2"));
        assertThat(ledger.held("rdma/a", List.of("0000:3b:00.2"))).isTrue();
        assertThat(AllocationLedger.read(file())).extracting(AllocationLedger.Entry::deviceId)
                .containsExactly("0000:3b:00.2");
        assertThat(ledger.held("rdma/b", List.of("0000:3b:00.2"))).isFalse();          // another resource's
        assertThat(ledger.held("rdma/a", List.of("0000:3b:00.2", "0000:3b:00.3"))).isFalse();

        ledger.record("rdma/a", List.of("0000:3b:00.3"));          // another ID's write pending: wait for it too
        assertThat(ledger.held("rdma/a", List.of("0000:3b:00.2"))).isFalse();
        ledger.allocated("rdma/a", List.of("0000:3b:00.3"));
        assertThat(ledger.held("rdma/a", List.of("0000:3b:00.2", "0000:3b:00.3"))).isTrue();

        ledger.forget("rdma/a", List.of("0000:3b:00.3"));
        assertThat(ledger.held("rdma/a", List.of("0000:3b:00.3"))).isFalse();

        ledger.stopWriting();                                        // handed over: every Allocate is logged
        assertThat(ledger.held("rdma/a", List.of("0000:3b:00.2"))).isFalse();
    }

    @Test
    void aLedgerNotTrustedHoldsNothingWithoutATurn() throws Exception {
        java.nio.file.Files.createDirectories(file().getParent());
        java.nio.file.Files.writeString(file(), "# rdma-node-agent allocation ledger v1\nrdma/a\t0000:3b:00.2\t1\t\n");
        AllocationLedger ledger = AllocationLedger.at(file(), Clock.systemUTC());

        assertThat(ledger.held("rdma/a", List.of("0000:3b:00.2"))).isFalse();
        assertThat(ledger.held(AllocationLedger.UNKNOWN, List.of("0000:3b:00.2"))).isFalse();
    }

    @Test
    void whatWasRecordedBeforeTheHandoverIsWrittenAndNothingAfterIt() throws Exception {
        AllocationLedger predecessor = AllocationLedger.at(file(), Clock.systemUTC());
        predecessor.record("rdma/a", List.of("0000:3b:00.2"));     // its write not waited for yet

        predecessor.stopWriting();
        assertThat(AllocationLedger.read(file())).extracting(AllocationLedger.Entry::deviceId)
                .containsExactly("0000:3b:00.2");

        assertThat(predecessor.allocated("rdma/a", List.of("0000:3b:00.3"))).containsExactly("0000:3b:00.3");
        assertThat(predecessor.heldBy()).containsKeys("0000:3b:00.2", "0000:3b:00.3");
        assertThat(AllocationLedger.read(file())).extracting(AllocationLedger.Entry::deviceId)
                .containsExactly("0000:3b:00.2");
    }

    /**
     * {@code threads} threads, spread over {@code ledgers}, each record {@link #CALLS} IDs of their own, one call
     * at a time, all starting at once; after every call the thread reads the file. Returns the IDs the file did
     * not hold when their call returned.
     */
    private List<String> allocateFromThreads(List<AllocationLedger> ledgers, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<String>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                AllocationLedger ledger = ledgers.get(t % ledgers.size());
                results.add(pool.submit(() -> {
                    start.await();
                    List<String> missing = new ArrayList<>();
                    for (int c = 0; c < CALLS; c++) {
                        String id = id(thread, c);
                        assertThat(ledger.allocated("rdma/a", List.of(id))).containsExactly(id);
                        if (AllocationLedger.read(file()).stream().noneMatch(e -> e.deviceId().equals(id))) {
                            missing.add(id);
                        }
                    }
                    return missing;
                }));
            }
            start.countDown();
            List<String> missing = new ArrayList<>();
            for (Future<List<String>> f : results) {
                missing.addAll(f.get(60, TimeUnit.SECONDS));
            }
            return missing;
        } finally {
            pool.shutdownNow();
        }
    }
}
