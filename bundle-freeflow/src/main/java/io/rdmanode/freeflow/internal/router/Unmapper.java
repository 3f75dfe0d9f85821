// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;

/**
 * Releases a mapping at once (sun.misc.Unsafe.invokeCleaner) rather than when the GC gets to it: tmpfs pages of an
 * unlinked shm file stay allocated while any mapping exists, so a client's freed MRs would otherwise keep host
 * memory until a collection. Callers guarantee no thread touches the buffer afterwards. Without the JDK's
 * unsupported module the GC does it.
 */
final class Unmapper {
    private static final MethodHandle CLEANER = find();
    private static final java.util.concurrent.ExecutorService UNMAPPER =
            java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "freeflow-unmapper");
                t.setDaemon(true);
                return t;
            });

    private Unmapper() {
    }

    /**
     * Releases the mapping and closes the file on the unmapper thread. Not on the caller's: a thread that touched a
     * page its client truncated holds an InternalError the JVM delivers at some later point (ShmFaults); delivered
     * inside the JDK's Cleaner it ends the JVM (System.exit(1): seen when the mailbox poller released a truncated
     * mailbox). The unmapper thread never touches client memory.
     */
    static void unmap(ByteBuffer mapped, java.nio.channels.FileChannel channel) {
        try {
            UNMAPPER.execute(() -> release(mapped, channel));
        } catch (java.util.concurrent.RejectedExecutionException impossible) {
            // a daemon executor never shut down
        }
    }

    private static void release(ByteBuffer mapped, java.nio.channels.FileChannel channel) {
        if (CLEANER != null && mapped != null && mapped.isDirect()) {
            try {
                CLEANER.invoke(mapped);
            } catch (Throwable ignored) {
                // left to the GC
            }
        }
        if (channel != null) {
            try {
                channel.close();
            } catch (java.io.IOException ignored) {
                // nothing to do
            }
        }
    }

    private static MethodHandle find() {
        try {
            Class<?> unsafe = Class.forName("sun.misc.Unsafe", false, ClassLoader.getPlatformClassLoader());
            Field f = unsafe.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            Object u = f.get(null);
            return MethodHandles.lookup().findVirtual(unsafe, "invokeCleaner",
                    MethodType.methodType(void.class, ByteBuffer.class)).bindTo(u);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
