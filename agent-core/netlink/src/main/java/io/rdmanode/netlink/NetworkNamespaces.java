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

    /** Whether {@code netns} is a network namespace file (nsfs) that can be entered now. */
    boolean exists(Path netns);
}
