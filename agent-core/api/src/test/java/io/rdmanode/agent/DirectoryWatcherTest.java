// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryWatcherTest {

    private static final Duration BOUND = Duration.ofSeconds(5);

    @TempDir
    Path tmp;

    @Test
    void callsBackWhenAFileAppearsChangesAndGoes() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        try (DirectoryWatcher watcher = DirectoryWatcher.of(tmp).threadName("test", "watch")
                .pollInterval(Duration.ofMinutes(1)).build(calls::incrementAndGet).start()) {
            await().atMost(BOUND).until(watcher::watching);
            Path file = tmp.resolve("a.jar");
            Files.writeString(file, "one");
            await().atMost(BOUND).until(() -> calls.get() >= 1);
            int afterCreate = calls.get();
            Files.delete(file);
            await().atMost(BOUND).until(() -> calls.get() > afterCreate);
        }
    }

    /**
     * What changes once {@code start()} has returned is reported, however late the watch thread runs: the watch
     * and the listing it compares with are taken by {@code start()} itself. They were taken on the watch thread,
     * so a change made before it ran was in the first listing and reported by nothing (a kubelet that came up
     * right after the device-plugin host started was seen only at the next 60 s resync). The poll is an hour
     * here, so only the watch can report it.
     */
    @Test
    void reportsAChangeMadeTheMomentStartReturns() throws Exception {
        for (int round = 0; round < 40; round++) {
            Path dir = Files.createDirectory(tmp.resolve("round-" + round));
            AtomicInteger calls = new AtomicInteger();
            try (DirectoryWatcher watcher = DirectoryWatcher.of(dir).pollInterval(Duration.ofHours(1))
                    .build(calls::incrementAndGet).start()) {
                Files.writeString(dir.resolve("kubelet.sock"), "");
                int r = round;
                await("round " + r + ": the file created right after start() reported").atMost(BOUND)
                        .until(() -> calls.get() >= 1);
            }
        }
    }

    @Test
    void namesItsThreadAfterOwnerAndPurpose() throws Exception {
        try (DirectoryWatcher watcher = DirectoryWatcher.of(tmp).threadName("launcher", "bundle-watch")
                .build(() -> { })) {
            assertThat(watcher.threadName()).isEqualTo("rdma-agent-launcher-bundle-watch");
        }
    }

    @Test
    void ignoresEntriesTheFilterRejects() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        try (DirectoryWatcher watcher = DirectoryWatcher.of(tmp).filter(name -> name.toString().endsWith(".sock"))
                .pollInterval(Duration.ofMillis(50)).build(calls::incrementAndGet).start()) {
            await().atMost(BOUND).until(watcher::watching);
            Files.writeString(tmp.resolve("notes.txt"), "x");
            Files.writeString(tmp.resolve("kubelet.sock"), "");
            await().atMost(BOUND).until(() -> calls.get() >= 1);
            // The .sock may be reported twice: once by a poll that lists it before its inotify event is read
            // (the JDK's watch service reads inotify on a thread of its own), once by that event. Wait until
            // both paths have had their say before counting.
            int settled = awaitSettled(calls);
            Files.writeString(tmp.resolve("more.txt"), "y");
            // Several polls and the .txt's events later, nothing else happened.
            await().during(Duration.ofMillis(300)).atMost(BOUND).until(() -> calls.get() == settled);
        }
    }

    /** The count once it has stayed the same for 300 ms (six polls of 50 ms). */
    private static int awaitSettled(AtomicInteger calls) {
        int[] last = {calls.get()};
        await().pollInterval(Duration.ofMillis(300)).atMost(BOUND).until(() -> {
            int now = calls.get();
            boolean same = now == last[0];
            last[0] = now;
            return same;
        });
        return last[0];
    }

    @Test
    void waitsForTheDirectoryQuietPeriodBeforeCallingBack() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        try (DirectoryWatcher watcher = DirectoryWatcher.of(tmp).quietPeriod(Duration.ofMillis(400))
                .pollInterval(Duration.ofMinutes(1)).build(calls::incrementAndGet).start()) {
            await().atMost(BOUND).until(watcher::watching);
            for (int i = 0; i < 5; i++) {
                Files.writeString(tmp.resolve("part" + i), "x");
            }
            await().atMost(BOUND).until(() -> calls.get() >= 1);
            // The burst above is far shorter than the quiet period: one callback for all of it.
            assertThat(calls.get()).isEqualTo(1);
        }
    }

    @Test
    void findsADirectoryThatAppearsLaterAndOneThatComesBack() throws Exception {
        Path dir = tmp.resolve("device-plugins");
        AtomicInteger calls = new AtomicInteger();
        try (DirectoryWatcher watcher = DirectoryWatcher.of(dir).pollInterval(Duration.ofMillis(50))
                .build(calls::incrementAndGet).start()) {
            await().during(Duration.ofMillis(200)).atMost(BOUND).until(() -> !watcher.watching());
            Files.createDirectories(dir);
            await().atMost(BOUND).until(() -> watcher.watching() && calls.get() >= 1);
            Files.delete(dir);
            await().atMost(BOUND).until(() -> !watcher.watching());
            int before = calls.get();
            Files.createDirectories(dir);
            await().atMost(BOUND).until(() -> watcher.watching() && calls.get() > before);
        }
    }

    /**
     * A directory renamed away and another put at its path (mv new conf.d): inotify follows the old inode, so every
     * later edit was found only by the poll. The poll that sees the new inode watches it; later edits come by event.
     */
    @Test
    void watchesADirectoryReplacedAtItsPath() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("conf.d"));
        AtomicInteger calls = new AtomicInteger();
        try (DirectoryWatcher watcher = DirectoryWatcher.of(dir).pollInterval(Duration.ofMillis(500))
                .build(calls::incrementAndGet).start()) {
            Path fresh = Files.createDirectory(tmp.resolve("conf.d.new"));
            Files.writeString(fresh.resolve("agent.conf"), "a = 1");
            Files.move(dir, tmp.resolve("conf.d.old"));
            Files.move(fresh, dir);
            await("the replacement reported").atMost(BOUND).until(() -> calls.get() >= 1);
            int settled = awaitSettled(calls);
            int polled = watcher.foundByPolling();

            Files.writeString(dir.resolve("agent.conf"), "a = 2");

            await("the edit in the new directory reported").atMost(BOUND).until(() -> calls.get() > settled);
            assertThat(watcher.foundByPolling()).as("reported by its event, not the poll").isEqualTo(polled);
        }
    }

    @Test
    void keepsWatchingAfterTheCallbackThrows() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        try (DirectoryWatcher watcher = DirectoryWatcher.of(tmp).pollInterval(Duration.ofMinutes(1)).build(() -> {
            calls.incrementAndGet();
            throw new IllegalStateException("handler bug");
        }).start()) {
            await().atMost(BOUND).until(watcher::watching);
            Files.writeString(tmp.resolve("a"), "x");
            await().atMost(BOUND).until(() -> calls.get() >= 1);
            int before = calls.get();
            Files.writeString(tmp.resolve("b"), "x");
            await().atMost(BOUND).until(() -> calls.get() > before);
        }
    }

    @Test
    void rejectsANonPositivePollInterval() {
        assertThatThrownBy(() -> DirectoryWatcher.of(tmp).pollInterval(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("poll interval");
    }
}
