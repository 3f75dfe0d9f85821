// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * For scripts/bench-cni: the CNI component with the fake RDMA kernel (no RDMA NIC here), a real network
 * namespace and the installed executable; writes "client netns" to the file named by args[0] once serving,
 * and cleans up on SIGTERM.
 */
public final class CniBenchAgent {

    private CniBenchAgent() {
    }

    public static void main(String[] args) throws Exception {
        String ns = Netns.unique("rdt-bench-");
        if (Netns.ip("netns", "add", ns) != 0) {
            throw new IllegalStateException("ip netns add " + ns + " failed (needs root)");
        }
        TestAgent agent = new TestAgent().start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                agent.close();
                Netns.ip("netns", "del", ns);
            } catch (Exception e) {
                e.printStackTrace();
            }
        }));
        Path ready = Path.of(args[0]);
        Files.writeString(ready, agent.client() + " " + Netns.path(ns) + "\n");
        Thread.currentThread().join();
    }
}
