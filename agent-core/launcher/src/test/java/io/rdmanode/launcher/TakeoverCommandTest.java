// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code takeover}, the unit's ExecReload (issue 27), with stand-in processes: a successor that serves (writes its
 * PID where {@code RDMA_AGENT_READY_FILE} says, as {@link ReadyNotice} does), one that exits, one that hangs.
 */
class TakeoverCommandTest {

    @TempDir
    Path dir;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final TakeoverCommand command = new TakeoverCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
    private Process predecessor;

    @AfterEach
    void cleanUp() throws IOException {
        if (predecessor != null) {
            predecessor.destroyForcibly();
        }
        Path pid = dir.resolve("successor.pid");
        if (Files.exists(pid)) {
            ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private List<String> script(String body) throws IOException {
        Path script = dir.resolve("successor.sh");
        Files.writeString(script, "#!/bin/sh\necho $$ > " + dir.resolve("successor.pid") + "\n" + body + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return List.of(script.toString());
    }

    @Test
    void startsTheSuccessorWaitsUntilItServesThenStopsThePredecessor() throws Exception {
        predecessor = new ProcessBuilder("sleep", "60").start();
        List<String> successor = script("sleep 0.3; echo $$ > \"$RDMA_AGENT_READY_FILE\"; exec sleep 60");

        int code = command.takeOver(successor, Duration.ofSeconds(10), Optional.of(predecessor.pid()));

        assertThat(code).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("successor pid").contains("serves after")
                .contains("SIGTERM to the predecessor pid " + predecessor.pid());
        assertThat(predecessor.waitFor(5, TimeUnit.SECONDS)).isTrue();
        long successorPid = Long.parseLong(Files.readString(dir.resolve("successor.pid")).trim());
        assertThat(ProcessHandle.of(successorPid).map(ProcessHandle::isAlive)).contains(true);   // outlives us
    }

    @Test
    void aSuccessorThatExitsFailsTheTakeoverAndLeavesThePredecessor() throws Exception {
        predecessor = new ProcessBuilder("sleep", "60").start();

        int code = command.takeOver(script("exit 5"), Duration.ofSeconds(10), Optional.of(predecessor.pid()));

        assertThat(code).isEqualTo(ExitCode.FAILURE.code);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("exited with 5").contains("serves on");
        assertThat(predecessor.isAlive()).isTrue();
    }

    @Test
    void aSuccessorThatDoesNotServeInTimeIsStopped() throws Exception {
        predecessor = new ProcessBuilder("sleep", "60").start();

        int code = command.takeOver(script("exec sleep 60"), Duration.ofSeconds(1), Optional.of(predecessor.pid()));

        assertThat(code).isEqualTo(ExitCode.FAILURE.code);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("did not serve within 1 s");
        assertThat(predecessor.isAlive()).isTrue();
        long successorPid = Long.parseLong(Files.readString(dir.resolve("successor.pid")).trim());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ProcessHandle.of(successorPid).map(ProcessHandle::isAlive).orElse(false)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(ProcessHandle.of(successorPid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
    }

    @Test
    void refusesUnknownOptions() {
        assertThat(command.run(dir, new String[] {"--bogus"})).isEqualTo(ExitCode.USAGE.code);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown option --bogus").contains("usage:");
    }
}
