// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Runs work inside another network namespace. setns(2) switches only the calling OS thread, so the work
 * runs on a fresh platform thread that enters {@code netns}, runs, and ends; never on a pooled or virtual
 * thread (a virtual thread may hop carriers and a pooled thread would leak the namespace into later work).
 */
@ProviderType
public interface NetworkNamespaces {

    /**
     * Calls {@code work} on a dedicated thread inside {@code netns} and returns its result; a
     * {@link NetlinkException} when the namespace cannot be opened or entered (ENOENT: gone), the work's own
     * exception (unwrapped when unchecked) otherwise.
     */
    <T> T callIn(Path netns, Callable<T> work) throws Exception;

    /**
     * Like {@link #callIn}, but {@code work} also sees the namespace's own sysfs at {@code /sys}. A sysfs mount
     * shows the network-namespaced classes ({@code class/net}, and {@code class/infiniband} in exclusive RDMA
     * netns mode) of the namespace it was mounted in, not of the reading thread, so the host's {@code /sys}
     * never lists a device moved into a pod. The thread gets a private mount namespace (a slave of the
     * host's, so nothing it mounts propagates back) with a fresh read-only sysfs over {@code /sys}; both go
     * when the thread ends. Needs CAP_SYS_ADMIN and a runtime that allows unshare(CLONE_NEWNS).
     *
     * @since 1.1
     */
    <T> T callInWithSysfs(Path netns, Callable<T> work) throws Exception;

    /** Whether {@code netns} is a network namespace file (nsfs) that can be entered now. */
    boolean exists(Path netns);
}
