// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.NetworkNamespaces;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * setns(2) on a dedicated platform thread. setns affects only the calling OS thread, and a Java platform
 * thread is one OS thread for its whole life, so a new thread per call enters the namespace, runs the work
 * and ends: no pooled thread is ever left in a pod's namespace, and virtual threads (which move between
 * carrier threads) are never used here.
 */
public final class NativeNamespaces implements NetworkNamespaces {

    public static final NativeNamespaces INSTANCE = new NativeNamespaces(NativeNetnsFiles.INSTANCE);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final NetnsFiles files;

    NativeNamespaces(NetnsFiles files) {
        this.files = files;
    }

    @Override
    public <T> T callIn(Path netns, Callable<T> work) throws Exception {
        return call(netns, false, work);
    }

    @Override
    public <T> T callInWithSysfs(Path netns, Callable<T> work) throws Exception {
        return call(netns, true, work);
    }

    private <T> T call(Path netns, boolean ownSysfs, Callable<T> work) throws Exception {
        // Opened on the caller's thread so a missing path fails fast, before a thread is made.
        int fd = files.open(netns);
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                try {
                    Posix.libc().setns(fd, Posix.CLONE_NEWNET);
                } catch (PosixException e) {
                    throw NativeNetnsFiles.fail("setns(" + netns + ", CLONE_NEWNET)", e);
                }
                if (ownSysfs) {
                    mountOwnSysfs(netns);
                }
                result.complete(work.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, "rdma-agent-netns-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        try {
            t.start();
            return result.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw new NetlinkException("in " + netns + ": " + e.getCause());
        } finally {
            t.join();
            files.close(fd);
        }
    }

    /**
     * What {@code ip netns exec} does, for this thread only. unshare(CLONE_NEWNS) is allowed in a threaded
     * process (it implies CLONE_FS, which only this thread's root and cwd share). The copy is made a slave
     * before mounting: the host's root is usually a shared mount, and a sysfs mounted over {@code /sys} in a
     * shared copy would propagate to the host. Slave (not private) so unmounts on the host still reach the copy
     * and never meet EBUSY because of this thread.
     */
    private static void mountOwnSysfs(Path netns) {
        Posix c = Posix.libc();
        String step = "unshare(CLONE_NEWNS) to read the sysfs of " + netns;
        try {
            c.unshare(Posix.CLONE_NEWNS);
            step = "mount --make-rslave / (private mount namespace for " + netns + ")";
            c.mount("none", "/", null, Posix.MS_REC | Posix.MS_SLAVE);
            step = "mount sysfs on /sys in " + netns;
            c.mount("sysfs", "/sys", "sysfs", Posix.MS_RDONLY | Posix.MS_NOSUID | Posix.MS_NODEV | Posix.MS_NOEXEC);
        } catch (PosixException e) {
            throw NativeNetnsFiles.fail(step, e);
        }
    }

    @Override
    public boolean exists(Path netns) {
        // /proc/<pid>/ns/net is a magic link whose target ("net:[4026531840]") is no path: test the link itself.
        if (!Files.exists(netns, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        if (netns.startsWith("/proc")) {
            // Only a network namespace's link ("net:[inode]"): /proc/<pid>/ns/mnt, /proc/<pid>/status and the
            // like exist too, and entering one failed later with a less telling error.
            try {
                return Files.readSymbolicLink(netns).toString().startsWith("net:[");
            } catch (java.nio.file.NotLinkException e) {
                // a file reached through /proc/<pid>/root: a bind mount is checked like any other below
            } catch (IOException | UnsupportedOperationException e) {
                return false;
            }
        }
        try {
            // A netns bind mount (ip netns, CRI runtimes): an nsfs file; a leftover unmounted file is not one.
            return "nsfs".equals(Files.getFileStore(netns).type());
        } catch (IOException e) {
            return false;
        }
    }
}
