// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's temporary directories that a killed demo left (SIGKILL runs no shutdown hook; in {@code /dev/shm}
 * they hold memory until reboot). Each demo directory names its owner in {@value #OWNER_FILE}: process id and
 * start time, so a reused pid does not pass for the owner. Only directories with our name prefix and that file,
 * whose owner is gone, are deleted: another demo still running keeps its directory, and nothing else is touched.
 */
final class DemoLeftovers {

    static final String PREFIX = "rdma-node-agent-demo-";
    static final String OWNER_FILE = ".owner";
    private static final Logger LOG = LoggerFactory.getLogger(DemoLeftovers.class);

    private DemoLeftovers() {
    }

    /**
     * A new demo directory in {@code parent}, private to this user. The name is short on purpose: the plugin
     * sockets go under it, and a socket path must fit sun_path (createTempDirectory's 19-digit names did not).
     */
    static Path create(Path parent) throws IOException {
        java.security.SecureRandom random = new java.security.SecureRandom();
        for (int attempt = 0; ; attempt++) {
            Path dir = parent.resolve(PREFIX + String.format("%08x", random.nextInt()));
            try {
                return Files.createDirectory(dir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
            } catch (java.nio.file.FileAlreadyExistsException e) {
                if (attempt > 100) {
                    throw e;
                }
            }
        }
    }

    /** Marks {@code dir} as this process's. */
    static void claim(Path dir) throws IOException {
        Files.writeString(dir.resolve(OWNER_FILE), identity(ProcessHandle.current()).orElse("unknown"));
    }

    /** Deletes the leftovers in {@code parent}; returns them. */
    static List<Path> clean(Path parent) {
        List<Path> removed = new ArrayList<>();
        if (!Files.isDirectory(parent)) {
            return removed;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, PREFIX + "*")) {
            for (Path dir : dirs) {
                Path owner = dir.resolve(OWNER_FILE);
                if (Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS) && Files.isRegularFile(owner)
                        && !alive(Files.readString(owner).trim())) {
                    Main.deleteTree(dir);                        // warns itself when it cannot
                    if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        removed.add(dir);
                        LOG.info("removed demo directory {} left by a demo that was killed", dir);
                    }
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot clean old demo directories in {}: {}", parent, e.getMessage());
        }
        return removed;
    }

    /** {@code <pid>@<start instant>}, as the owner file holds it. */
    static Optional<String> identity(ProcessHandle process) {
        return process.info().startInstant().map(start -> process.pid() + "@" + start);
    }

    private static boolean alive(String owner) {
        int at = owner.indexOf('@');
        if (at < 0) {
            return true;                                  // not written by this code: leave it
        }
        try {
            long pid = Long.parseLong(owner.substring(0, at));
            return ProcessHandle.of(pid).flatMap(DemoLeftovers::identity).map(owner::equals).orElse(false);
        } catch (NumberFormatException e) {
            return true;
        }
    }
}
