// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import io.rdmanode.netlink.Netlink;
import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.RdmaLink;
import io.rdmanode.netlink.RdmaNetlink;
import io.rdmanode.netlink.RdmaNetnsMode;
import java.nio.file.Path;
import java.util.stream.Collectors;

/**
 * Runs inside the Soft-RoCE VM (NetlinkSoftRoceIT): the device dump, the netns mode set and read back through
 * RDMA netlink (not the rdma tool), a move of rxe0 into a namespace (rxe cannot: EOPNOTSUPP), and the mode
 * change refused while that namespace exists, and which devices a namespace's own sysfs lists in each mode. Prints key=value lines; the host side asserts.
 */
public final class NetlinkVmProbe {

    private NetlinkVmProbe() {
    }

    public static void main(String[] args) throws Exception {
        out("rxe-setup.exit", new ProcessBuilder("rxe-setup").inheritIO().start().waitFor());
        RdmaNetlink rdma = Netlink.rdma();
        out("links", rdma.links().stream().map(RdmaLink::name).sorted().collect(Collectors.joining(",")));
        out("links.protocol", rdma.link("rxe0").map(RdmaLink::protocol).orElse("?"));
        out("mode.default", rdma.netnsMode());
        out("set.exclusive", attempt(() -> rdma.setNetnsMode(RdmaNetnsMode.EXCLUSIVE)));
        out("mode.after.set", rdma.netnsMode());
        out("netns.add", new ProcessBuilder("ip", "netns", "add", "pod1").inheritIO().start().waitFor());
        out("move.rxe0", attempt(() -> rdma.moveToNetns("rxe0", Path.of("/var/run/netns/pod1"))));
        out("move.missing", attempt(() -> rdma.moveToNetns("rxe9", Path.of("/var/run/netns/pod1"))));
        out("sysfs.exclusive.pod.sees.rxe0", seesInOwnSysfs("pod1", "rxe0"));
        out("sysfs.exclusive.host.sees.rxe0", java.nio.file.Files.exists(Path.of("/sys/class/infiniband/rxe0")));
        out("set.shared.with.netns", attempt(() -> rdma.setNetnsMode(RdmaNetnsMode.SHARED)));
        new ProcessBuilder("ip", "netns", "del", "pod1").inheritIO().start().waitFor();
        // The kernel tears a deleted namespace down asynchronously (cleanup_net): EBUSY until it is gone.
        String[] shared = {""};
        java.util.concurrent.atomic.AtomicInteger tries = new java.util.concurrent.atomic.AtomicInteger();
        try {
            org.awaitility.Awaitility.await("mode SHARED once pod1 is gone").pollDelay(java.time.Duration.ZERO)
                    .pollInterval(java.time.Duration.ofMillis(50)).atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> {
                        tries.incrementAndGet();
                        shared[0] = attempt(() -> rdma.setNetnsMode(RdmaNetnsMode.SHARED));
                        return shared[0].equals("ok");
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // reported below: the last attempt's error
        }
        out("set.shared", shared[0]);
        out("set.shared.tries", tries.get());
        out("mode.final", rdma.netnsMode());
        new ProcessBuilder("ip", "netns", "add", "view1").inheritIO().start().waitFor();
        out("sysfs.shared.netns.sees.rxe0", seesInOwnSysfs("view1", "rxe0"));
        new ProcessBuilder("ip", "netns", "del", "view1").inheritIO().start().waitFor();
        out("done", true);
    }

    /**
     * Whether a thread inside {@code netns} with that namespace's own sysfs lists the RDMA device: the view the
     * metrics bundle reads a pod's device through. Shared mode shows every device in every namespace; exclusive
     * mode only the namespace's own.
     */
    private static String seesInOwnSysfs(String netns, String device) {
        try {
            return String.valueOf(Netlink.namespaces().callInWithSysfs(Path.of("/var/run/netns", netns),
                    () -> java.nio.file.Files.exists(Path.of("/sys/class/infiniband", device))));
        } catch (Exception e) {
            System.out.println("# " + e);
            return "error";
        }
    }

    private static String attempt(Runnable r) {
        try {
            r.run();
            return "ok";
        } catch (NetlinkException e) {
            System.out.println("# " + e.getMessage());
            return NetlinkException.errnoName(e.errno());
        }
    }

    private static void out(String key, Object value) {
        System.out.println(key + "=" + value);
    }
}
