// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells whoever started the agent that it serves: systemd, for a {@code Type=notify} unit ({@code READY=1} and
 * {@code MAINPID=} this process, so that a successor started by {@code ExecReload} becomes the unit's main
 * process), and a {@code takeover} command waiting for its successor ({@value #READY_FILE_ENV}: this process's
 * PID written there).
 *
 * <p>sd_notify is a datagram on the Unix socket {@code $NOTIFY_SOCKET}, and the JDK has no Unix datagram
 * sockets. Rather than native code in the launcher (which loads no native library today), this runs
 * {@code systemd-notify --pid=<this process> --ready}: wherever systemd sets {@code NOTIFY_SOCKET}, systemd's
 * own tool is installed. {@code --pid} also makes the message carry this process's credentials (the agent runs
 * as root under the unit), so systemd attributes it to the agent even after the short-lived tool has exited,
 * which a message sent with the tool's own credentials would not be when systemd reads it late.
 */
final class ReadyNotice {

    static final String READY_FILE_ENV = "RDMA_AGENT_READY_FILE";
    private static final Logger LOG = LoggerFactory.getLogger(ReadyNotice.class);

    private final Map<String, String> env;
    private final Optional<Path> systemdNotify;
    private final long pid;

    ReadyNotice(Map<String, String> env, Optional<Path> systemdNotify, long pid) {
        this.env = env;
        this.systemdNotify = systemdNotify;
        this.pid = pid;
    }

    /** This process, its environment and the {@code systemd-notify} on its {@code PATH}. */
    static ReadyNotice ofThisProcess() {
        return new ReadyNotice(System.getenv(), onPath("systemd-notify", System.getenv("PATH")),
                ProcessHandle.current().pid());
    }

    /** Sends every notice that applies; {@code status} is the one-line state shown by {@code systemctl status}. */
    void ready(String status) {
        notifySystemd(status);
        writeReadyFile();
    }

    /** @return whether systemd was told (false when it did not ask: no {@code NOTIFY_SOCKET}) */
    boolean notifySystemd(String status) {
        if (env.getOrDefault("NOTIFY_SOCKET", "").isEmpty()) {
            return false;
        }
        if (systemdNotify.isEmpty()) {
            LOG.error("NOTIFY_SOCKET is set but systemd-notify is not on PATH: systemd is not told that the agent"
                    + " is ready (a Type=notify unit then fails its start after TimeoutStartSec)");
            return false;
        }
        List<String> command = new ArrayList<>(List.of(systemdNotify.get().toString(), "--pid=" + pid, "--ready",
                "--status=" + status.replace('\n', ' ')));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                LOG.warn("systemd-notify did not return within 5 s");
                return false;
            }
            if (p.exitValue() != 0) {
                LOG.warn("systemd-notify --ready exited with {}", p.exitValue());
                return false;
            }
            LOG.info("told systemd READY=1 MAINPID={}", pid);
            return true;
        } catch (IOException e) {
            LOG.warn("cannot run {}: {}", systemdNotify.get(), e.getMessage());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Writes this process's PID to {@value #READY_FILE_ENV} (atomically: the waiter never reads half of it). */
    void writeReadyFile() {
        String file = env.getOrDefault(READY_FILE_ENV, "");
        if (file.isEmpty()) {
            return;
        }
        Path target = Path.of(file);
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try {
            Files.writeString(tmp, pid + "\n", StandardCharsets.US_ASCII);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            LOG.warn("cannot tell the takeover command that this instance serves ({}): {}", file, e.getMessage());
        }
    }

    static Optional<Path> onPath(String name, String path) {
        for (String dir : (path == null || path.isEmpty() ? "/usr/bin:/bin" : path).split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
