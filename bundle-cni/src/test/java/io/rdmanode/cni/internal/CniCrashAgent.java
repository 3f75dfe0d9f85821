// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.rdmanode.netlink.Netlink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The agent process of {@link CniCrashBench}: the CNI component (start-up reconciliation, client install, real
 * socket) over a state directory and a file-backed fake RDMA kernel that both outlive it, since the bench
 * SIGKILLs this JVM at random moments and starts it again. Args: root directory, ready file. Writes its pid
 * to the ready file once serving; a SIGTERM stops it cleanly.
 */
public final class CniCrashAgent {

    private CniCrashAgent() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        Path ready = Path.of(args[1]);
        FakeRdmaKernel kernel = FakeRdmaKernel.persistent(root.resolve("kernel"), CniCrashBench.devices());
        CniComponent component = new CniComponent(TestAgent.config(root), CniCrashBench.resolver(), kernel,
                Netlink.namespaces());
        Runtime.getRuntime().addShutdownHook(new Thread(component::stop));
        Path tmp = ready.resolveSibling(ready.getFileName() + ".tmp");
        Files.writeString(tmp, ProcessHandle.current().pid() + "\n");
        Files.move(tmp, ready, StandardCopyOption.ATOMIC_MOVE);
        Thread.currentThread().join();
    }
}
