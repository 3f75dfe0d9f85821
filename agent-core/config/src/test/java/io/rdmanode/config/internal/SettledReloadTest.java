// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Saves as operators make them, on a real file watched by the bridge's own parts: {@link ConfigFileWatcher}
 * (inotify), {@link SettledReload} with the bridge's timings and {@link ConfigReloader} writing to an in-memory
 * ConfigurationAdmin. What was applied is read where {@code /status} reads it, {@link ConfigHistory}.
 */
class SettledReloadTest {

    static final String FULL = """
            deviceplugin.shared.pools = [
              { name = hca_a, rdmaHcaMax = 100, selectors { vendors = ["15b3"] } }
              { name = hca_b, rdmaHcaMax = 100, selectors { vendors = ["15b3"] } }
            ]
            probe { greeting = hello, size = 8 }
            """;
    static final String EDITED = FULL.replace("size = 8", "size = 16");

    @TempDir
    Path dir;

    private Path file;
    private ConfigHistory history;
    private final InMemoryOsgi.Admin admin = new InMemoryOsgi.Admin();
    private ScheduledExecutorService worker;
    private ConfigFileWatcher watcher;

    /** Like the bridge's activation: the first revision applied, then the file watched. */
    @BeforeEach
    void startWithTheFullFileApplied() throws IOException {
        file = dir.resolve("agent.conf");
        Files.writeString(file, FULL);
        history = new ConfigHistory(file.toString());
        worker = Executors.newSingleThreadScheduledExecutor();
        ConfigReloader[] reloader = new ConfigReloader[1];
        reloader[0] = new ConfigReloader(file, Map.of(), () -> ConfigMapperTest.SCHEMA,
                new ConfigAdminWriter(admin.service, file.toString()), new BundleSwitches(InMemoryOsgi.context()),
                history, runtime -> { }, new ConfigValidators(InMemoryOsgi.context()),
                delayMs -> worker.schedule(reloader[0]::reloadIfChanged, delayMs, TimeUnit.MILLISECONDS));
        reloader[0].reloadIfChanged();
        assertThat(history.appliedCount()).isEqualTo(1);
        assertThat(admin.stored).hasSize(3);
        SettledReload settled = new SettledReload(worker, file, reloader[0]::reloadIfChanged,
                HoconConfigBridge.DEBOUNCE_MS, HoconConfigBridge.MAX_WAIT_MS);
        watcher = new ConfigFileWatcher(file, Duration.ofSeconds(2), settled::fileChanged);
        watcher.start();
    }

    @AfterEach
    void stop() {
        watcher.close();
        worker.shutdownNow();
    }

    @Test
    void aSaveThatTruncatesPausesAndWritesAppliesOnlyTheFinalContent() throws Exception {
        // given the shell's > (or an editor writing in place) that pauses between truncate and write
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            Thread.sleep(60);
            channel.write(ByteBuffer.wrap(EDITED.getBytes(StandardCharsets.UTF_8)));
        }

        // then the edit is applied, and no revision in between (the empty file's defaults) deleted anything
        await().atMost(Duration.ofSeconds(5)).until(() -> lastApplied().get("checksum")
                .equals(HoconFile.checksum(bytes(EDITED))));
        Thread.sleep(3 * HoconConfigBridge.DEBOUNCE_MS);
        assertThat(admin.deleted).isEmpty();
        assertThat(history.appliedCount()).isEqualTo(2);
        assertThat(lastApplied()).containsEntry("checksum", HoconFile.checksum(bytes(EDITED)))
                .containsEntry("configurations", 3);
    }

    /**
     * A writer that pauses longer than the settle time, with valid HOCON at the pause that lacks the pools (written
     * last): that revision is held, not applied, and nothing is deleted before the rest arrives.
     */
    @Test
    void aSaveThatPausesPastTheSettleTimeDeletesNothingBeforeTheRestArrives() throws Exception {
        String head = "probe { greeting = hello, size = 16 }\n";
        String tail = FULL.substring(0, FULL.indexOf("probe {"));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            channel.write(ByteBuffer.wrap(bytes(head)));
            await().atMost(Duration.ofSeconds(5)).until(() -> history.status().get("held") != null);
            assertThat(heldRemovals()).containsExactlyInAnyOrder("io.rdmanode.deviceplugin.shared.pools~hca_a",
                    "io.rdmanode.deviceplugin.shared.pools~hca_b");
            Thread.sleep(ConfigReloader.HOLD_REMOVALS_MS / 2);
            channel.write(ByteBuffer.wrap(bytes(tail)));
        }

        await().atMost(Duration.ofSeconds(5)).until(() -> lastApplied().get("checksum")
                .equals(HoconFile.checksum(bytes(head + tail))));
        assertThat(admin.deleted).isEmpty();
        assertThat(history.appliedCount()).isEqualTo(2);
        assertThat(history.status().get("held")).isNull();
    }

    /**
     * A save that ends with the content in force (a script rewriting the file as it was, pausing half way): the hold
     * ends with it, nothing is applied, and a removal made later waits the whole hold again. The hold stayed, and a
     * later removal of the same sections was applied at once, timed from the first.
     */
    @Test
    void aSaveThatEndsAsItStartedEndsTheHold() throws Exception {
        String tail = FULL.substring(FULL.indexOf("probe {"));
        String head = FULL.substring(0, FULL.indexOf("probe {"));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            channel.write(ByteBuffer.wrap(bytes(head)));
            await().atMost(Duration.ofSeconds(5)).until(() -> history.status().get("held") != null);
            channel.write(ByteBuffer.wrap(bytes(tail)));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> history.status().get("held") == null);
        Thread.sleep(ConfigReloader.HOLD_REMOVALS_MS);
        assertThat(history.appliedCount()).isEqualTo(1);

        long saved = System.nanoTime();
        Path next = dir.resolve("agent.conf.new");
        Files.writeString(next, head);
        Files.move(next, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        await().atMost(Duration.ofSeconds(5)).until(() -> history.appliedCount() == 2);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - saved))
                .isGreaterThanOrEqualTo(ConfigReloader.HOLD_REMOVALS_MS);
        assertThat(admin.deleted).containsExactly("io.rdmanode.probe");
    }

    /** A removal the operator means is applied once the file has kept it for the hold. */
    @Test
    void aRemovalIsAppliedOnceTheFileHasKeptIt() throws Exception {
        long saved = System.nanoTime();
        Files.writeString(file, FULL.replace("  { name = hca_b, rdmaHcaMax = 100, selectors { vendors = [\"15b3\"] } }\n",
                ""));

        await().atMost(Duration.ofSeconds(5)).until(() -> history.appliedCount() == 2);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - saved))
                .isGreaterThanOrEqualTo(ConfigReloader.HOLD_REMOVALS_MS);
        assertThat(admin.deleted).containsExactly("io.rdmanode.deviceplugin.shared.pools~hca_b");
        assertThat(lastApplied()).containsEntry("deleted", List.of("io.rdmanode.deviceplugin.shared.pools~hca_b"));
        assertThat(history.status().get("held")).isNull();
        assertThat(history.status().get("revision")).isEqualTo(2L);
    }

    @Test
    void anEmptyFileIsRejectedAndThePreviousRevisionStays() throws Exception {
        Files.write(file, new byte[0]);

        await().atMost(Duration.ofSeconds(5)).until(this::reloadedSinceStart);
        assertThat(admin.deleted).isEmpty();
        assertThat(lastRejectedProblems()).containsExactly(file + ": the file is empty (a save in progress? write"
                + " the new file beside it and rename it over)");
        assertThat(history.appliedCount()).isEqualTo(1);
        assertThat(history.health().message()).startsWith("revision 1 ");
    }

    @Test
    void aFileOverTheLimitIsRejectedWithItsSizeAndThePreviousRevisionStays() throws Exception {
        try (RandomAccessFile out = new RandomAccessFile(file.toFile(), "rw")) {
            out.setLength(12L << 20); // NUL bytes: what a runaway writer leaves; never read whole
        }

        await().atMost(Duration.ofSeconds(5)).until(this::reloadedSinceStart);
        assertThat(lastRejectedProblems()).containsExactly(file + ": the file is 12582912 bytes, over the limit of"
                + " 1048576 bytes (1 MiB) for a configuration file");
        assertThat(admin.deleted).isEmpty();
        assertThat(history.appliedCount()).isEqualTo(1);

        // and the next good save applies
        Files.writeString(file, EDITED);
        await().atMost(Duration.ofSeconds(5)).until(() -> history.appliedCount() == 2);
        assertThat(admin.deleted).isEmpty();
    }

    @Test
    void aFileWrittenWithoutPauseIsStillReadWithinTheBound() throws Exception {
        // given a writer that appends every 20 ms for 2 s: each event pushes the read back, the bound does not
        long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        int line = 0;
        while (System.nanoTime() < until && history.appliedCount() == 1) {
            Files.writeString(file, "# line " + line++ + "\n", StandardOpenOption.APPEND);
            Thread.sleep(20);
        }

        assertThat(history.appliedCount()).as("a reload while the writer still wrote").isEqualTo(2);
    }

    private boolean reloadedSinceStart() {
        return history.appliedCount() + history.rejectedCount() > 1;
    }

    private Map<String, Object> lastApplied() {
        @SuppressWarnings("unchecked")
        Map<String, Object> applied = (Map<String, Object>) history.status().get("lastApplied");
        return applied;
    }

    private List<String> heldRemovals() {
        @SuppressWarnings("unchecked")
        Map<String, Object> held = (Map<String, Object>) history.status().get("held");
        @SuppressWarnings("unchecked")
        List<String> removes = (List<String>) held.get("removes");
        return removes;
    }

    private List<String> lastRejectedProblems() {
        @SuppressWarnings("unchecked")
        Map<String, Object> rejected = (Map<String, Object>) history.status().get("lastRejected");
        @SuppressWarnings("unchecked")
        List<String> problems = (List<String>) rejected.get("problems");
        return problems;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
