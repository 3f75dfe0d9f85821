// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import java.nio.MappedByteBuffer;

/**
 * Faults in a tenant's shared memory. Every MR file and mailbox is a file its tenant can open read-write, and so can
 * truncate (no seal exists for a file opened by name): the router's next access to a page past the new end raises
 * SIGBUS, which the JVM turns into an {@link InternalError} "a fault occurred in ... unsafe memory access". It is
 * delivered to the accessing thread later, not at the access: at its next call into the VM or native code (JDK 17)
 * or its next safepoint poll (later JDKs). Uncaught it ended the mailbox poller, and so every tenant's fast path;
 * surfacing inside the JDK's Cleaner (an unmap) it ended the whole agent, since the Cleaner calls System.exit(1) on
 * any error. So the threads that touch tenant memory catch it around each unit of work, make a pending one surface
 * inside that unit ({@link #deliver}), and then find the files that were cut short ({@link #truncated}): their
 * tenants are reclaimed, nobody else is touched.
 */
final class ShmFaults {
    private static final Object PROBE = new Object();

    private ShmFaults() {
    }

    /**
     * Makes a fault still pending on this thread surface here: Thread.holdsLock is a call into the VM, and the way
     * back into Java checks for a pending unsafe-access error.
     */
    static void deliver() {
        Thread.holdsLock(PROBE);
    }

    /** Whether e is the JVM's report of a fault in mapped memory (rather than an internal error of another kind). */
    static boolean isFault(Throwable e) {
        return e instanceof InternalError && e.getMessage() != null && e.getMessage().contains("unsafe memory access");
    }

    /** Whether the file's last mapped byte is no longer backed by the file: its tenant truncated it. */
    static boolean truncated(ShmFile f) {
        MappedByteBuffer b = f.buffer();
        if (b == null || f.size() == 0) {
            return false;
        }
        try {
            b.get((int) (f.size() - 1));
            deliver();
            return false;
        } catch (InternalError e) {
            if (isFault(e)) {
                return true;
            }
            throw e;
        }
    }
}
