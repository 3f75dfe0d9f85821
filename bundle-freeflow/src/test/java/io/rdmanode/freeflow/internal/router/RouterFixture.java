// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.testclient.FfClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A router with its control socket and shm files in a fresh short temp dir (Unix socket paths must stay under
 * 107 bytes whatever the checkout path): /dev/shm when there is one, like the genuine client expects.
 */
final class RouterFixture implements AutoCloseable {
    final Path dir;
    final Path shm;
    final Router router;
    final ControlServer server;

    RouterFixture(Limits limits) throws IOException {
        this(limits, PollerSettings.defaults());
    }

    RouterFixture(Limits limits, PollerSettings poller) throws IOException {
        this(limits, poller, ControlSettings.defaults());
    }

    RouterFixture(Limits limits, ControlSettings control) throws IOException {
        this(limits, PollerSettings.defaults(), control);
    }

    RouterFixture(Limits limits, PollerSettings poller, ControlSettings control) throws IOException {
        this(limits, poller, control, null, 0);
    }

    /** A router with the verbs transport on {@code device} (a fake in host tests), or the software one when null. */
    RouterFixture(Limits limits, PollerSettings poller, ControlSettings control,
                  io.rdmanode.freeflow.internal.verbs.VerbsDevice device, int gidIndex) throws IOException {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of("/tmp");
        this.dir = Files.createTempDirectory(base, "fft");
        this.shm = Files.createDirectory(dir.resolve("shm"));
        Router r = null;
        try {
            r = device == null ? new Router(new RouterSettings(shm, "t", limits, poller))
                    : new Router(new RouterSettings(shm, "t", limits, poller,
                            RouterSettings.Backend.verbs(device.name(), gidIndex)), device);
            this.server = new ControlServer(dir.resolve("ffrouter"), r, control, 100);
        } catch (IOException | RuntimeException | Error e) {
            if (r != null) {
                r.close();
            }
            delete(dir);
            throw e;
        }
        this.router = r;
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    RouterFixture() throws IOException {
        this(Limits.defaults());
    }

    FfClient client() {
        return new FfClient(server.socket(), shm, 7);
    }

    long shmFiles() throws IOException {
        try (Stream<Path> s = Files.list(shm)) {
            return s.count();
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        router.close();
        delete(dir);
    }
}
