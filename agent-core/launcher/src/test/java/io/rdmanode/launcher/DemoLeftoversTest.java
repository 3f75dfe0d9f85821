// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 8, item 8: a demo killed with SIGKILL leaves its directory; the next demo start removes it. */
class DemoLeftoversTest {

    @TempDir
    Path home;
    @TempDir
    Path shm;

    @Test
    void theNextDemoRemovesWhatAKilledDemoLeftAndNothingElse() throws Exception {
        Process killed = new ProcessBuilder("sleep", "60").start();
        String killedOwner = DemoLeftovers.identity(killed.toHandle()).orElseThrow();
        killed.destroyForcibly().waitFor();
        Path leftover = demoDir("rdma-node-agent-demo-111", killedOwner);
        Files.createDirectories(leftover.resolve("host/sys/class/infiniband"));
        Path running = demoDir("rdma-node-agent-demo-222", DemoLeftovers.identity(ProcessHandle.current()).orElseThrow());
        Path reusedPid = demoDir("rdma-node-agent-demo-333", ProcessHandle.current().pid() + "@1970-01-01T00:00:00Z");
        Path noMarker = Files.createDirectories(shm.resolve("rdma-node-agent-demo-444"));
        Path otherName = demoDir("someone-else-555", killedOwner);

        Path fresh = DemoHost.prepare(home, shm);

        assertThat(leftover).doesNotExist();
        assertThat(reusedPid).doesNotExist();
        assertThat(running).exists();
        assertThat(noMarker).exists();
        assertThat(otherName).exists();
        assertThat(fresh.resolve(DemoLeftovers.OWNER_FILE)).exists();
        assertThat(fresh.resolve("device-plugins")).isDirectory();
        Path inShm = DemoHost.prepare(home, Path.of("/dev/shm"));
        try {
            assertThat(inShm.resolve("device-plugins").toString().length()).as("demo sockets fit sun_path")
                    .isLessThanOrEqualTo(58);
        } finally {
            Main.deleteTree(inShm);
        }
    }

    private Path demoDir(String name, String owner) throws IOException {
        Path dir = Files.createDirectories(shm.resolve(name));
        Files.writeString(dir.resolve(DemoLeftovers.OWNER_FILE), owner);
        return dir;
    }
}
