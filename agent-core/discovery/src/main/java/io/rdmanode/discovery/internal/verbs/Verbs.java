// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import java.util.ArrayList;
import java.util.List;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.byref.IntByReference;

/** Loads libibverbs and turns NULL/errno into {@link VerbsException}; every list it gets is freed. */
final class Verbs {

    private static final int ENOSYS = 38;

    private final LibIbverbs lib;

    private Verbs(LibIbverbs lib) {
        this.lib = lib;
    }

    /** Throws {@link VerbsException} naming the library when it is not installed or cannot be bound. */
    static Verbs load() {
        try {
            return new Verbs(LibraryLoader.create(LibIbverbs.class).failImmediately().load("libibverbs.so.1"));
        } catch (RuntimeException | LinkageError e) {
            throw new VerbsException("cannot load libibverbs.so.1: " + e.getMessage());
        }
    }

    /** Device names as {@code ibv_get_device_list} returns them; empty (not an error) with no device. */
    List<String> deviceNames() {
        IntByReference num = new IntByReference();
        Pointer list = lib.ibv_get_device_list(num);
        if (list == null) {
            int errno = Runtime.getRuntime(lib).getLastError();
            if (errno == ENOSYS) {
                return List.of();                   // rdma-core's answer when no uverbs device exists at all
            }
            throw new VerbsException("ibv_get_device_list: errno " + errno);
        }
        try {
            List<String> names = new ArrayList<>();
            int size = Runtime.getRuntime(lib).addressSize();
            for (int i = 0; i < num.intValue(); i++) {
                names.add(lib.ibv_get_device_name(list.getPointer((long) i * size)));
            }
            return names;
        } finally {
            lib.ibv_free_device_list(list);
        }
    }
}
