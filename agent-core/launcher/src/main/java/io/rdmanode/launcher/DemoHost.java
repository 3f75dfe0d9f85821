// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import io.rdmanode.agent.Ttar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The demo's private world: a temporary state directory for the framework cache, sockets and the HTTP URL
 * file, holding the recorded demo host unpacked under {@code host/} ({@code host/sys}, {@code host/dev}).
 * {@code config/demo.conf} points every path of the agent into it through {@code ${rdma.agent.stateDir}}, so
 * the demo is configuration, not a code path of the agent.
 */
final class DemoHost {

    static final String RECORDING = "config/demo-host/cx5-roce-sriov.ttar";

    private DemoHost() {
    }

    /** Memory-backed when the machine has it: sysfs is too, and on some disks 2,000 small files take seconds. */
    private static final Path SHM = Path.of("/dev/shm");

    static Path prepare(Path home) throws IOException {
        return prepare(home, Files.isDirectory(SHM) && Files.isWritable(SHM) ? SHM
                : Path.of(System.getProperty("java.io.tmpdir")));
    }

    /** In {@code parent}, after removing what killed demos left there. */
    static Path prepare(Path home, Path parent) throws IOException {
        DemoLeftovers.clean(parent);
        Path dir = DemoLeftovers.create(parent);
        DemoLeftovers.claim(dir);
        Files.createDirectories(dir.resolve("device-plugins"));
        Path recording = home.resolve(RECORDING);
        if (Files.isRegularFile(recording)) {
            Ttar.unpack(recording, dir.resolve("host"));
        }
        return dir;
    }
}
