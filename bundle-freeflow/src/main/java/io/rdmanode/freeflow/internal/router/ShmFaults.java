// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

/**
 * Faults in a tenant's shared memory. Every MR file and mailbox is a file its tenant can open read-write, and so can
 * truncate (no seal exists for a file opened by name): the router's next access to a page past the new end raises
 * SIGBUS, which the JVM turns into an {@link InternalError} "a fault occurred in ... unsafe memory access". It is
 * delivered to the accessing thread later, not at the access: at a safepoint poll or a call into the VM (JDK 17),
 * at its next poll (later JDKs). Uncaught it ended the mailbox poller, and so every tenant's fast path; delivered
 * inside the JDK's Cleaner (an unmap) it ended the whole agent, since the Cleaner calls System.exit(1) on any error.
 * So the threads that touch tenant memory catch it around everything they run (the poller around its whole loop,
 * a control worker around each request), unmapping happens on a thread that never touches tenant memory
 * ({@link Unmapper}), and the files cut short are found by their size ({@link ShmFile#truncated}): their tenants
 * are reclaimed, nobody else is touched.
 */
final class ShmFaults {

    private ShmFaults() {
    }

    /** Whether e is the JVM's report of a fault in mapped memory (rather than an internal error of another kind). */
    static boolean isFault(Throwable e) {
        return e instanceof InternalError && e.getMessage() != null && e.getMessage().contains("unsafe memory access");
    }
}
