// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import io.rdmanode.netlink.Netlink;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What reading inside a pod's namespace costs per call: {@code callIn} (a fresh thread enters the netns) next to
 * {@code callInWithSysfs} (the same plus a private mount namespace and a sysfs mount), the metrics bundle's
 * per-pod-device cost on every scrape. Needs root; makes and removes its own namespace.
 * Run: {@code scripts/bench-netns [CALLS]}.
 */
public final class NamespaceSwitchBenchmark {

    private NamespaceSwitchBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        String name = "rdt-bench-" + ProcessHandle.current().pid();
        Path ns = Path.of("/var/run/netns", name);
        if (new ProcessBuilder("ip", "netns", "add", name).inheritIO().start().waitFor() != 0) {
            throw new IllegalStateException("ip netns add failed: needs root");
        }
        try {
            Path lo = Path.of("/sys/class/net/lo");
            System.out.printf("%d calls per round; mounts in this mount namespace: %d%n", calls,
                    Files.readAllLines(Path.of("/proc/self/mountinfo")).size());
            for (int round = 1; round <= 5; round++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    Netlink.namespaces().callIn(ns, () -> Files.exists(lo));
                }
                long t1 = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    Netlink.namespaces().callInWithSysfs(ns, () -> Files.exists(lo));
                }
                long t2 = System.nanoTime();
                System.out.printf("round %d: callIn %.3f ms/call, callInWithSysfs %.3f ms/call (%.2fx)%n", round,
                        (t1 - t0) / 1e6 / calls, (t2 - t1) / 1e6 / calls, (double) (t2 - t1) / (t1 - t0));
            }
        } finally {
            new ProcessBuilder("ip", "netns", "del", name).inheritIO().start().waitFor();
        }
    }
}
