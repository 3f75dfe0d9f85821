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

    private Unmapper() {
    }

    static boolean immediate() {
        return CLEANER != null;
    }

    static void unmap(ByteBuffer mapped) {
        // A fault in tenant memory still pending on this thread must not surface inside the JDK's Cleaner, which
        // ends the JVM on any error (ShmFaults): it surfaces here, the mapping is released, and it goes on to the
        // caller's handler.
        InternalError pending = null;
        try {
            ShmFaults.deliver();
        } catch (InternalError e) {
            pending = e;
        }
        if (CLEANER != null && mapped != null && mapped.isDirect()) {
            try {
                CLEANER.invoke(mapped);
            } catch (Throwable ignored) {
                // left to the GC
            }
        }
        if (pending != null) {
            throw pending;
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
