// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import io.rdmanode.discovery.internal.verbs.LibIbverbs.DeviceAttr;
import io.rdmanode.discovery.internal.verbs.LibIbverbs.GidEntry;
import io.rdmanode.discovery.internal.verbs.LibIbverbs.PortAttr;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import jnr.ffi.byref.IntByReference;

/**
 * Loads libibverbs and turns NULL/-1+errno/errno returns into {@link VerbsException}s that name the call and
 * the device. Every device list is freed and every opened context closed, also when a query fails.
 * Not thread-safe: one discovery thread uses it.
 */
final class Verbs {

    static final String LIBRARY = "libibverbs.so.1";
    private static final int ENOSYS = 38;
    private static final int ENODATA = 61;

    private final LibIbverbs lib;
    private final Runtime runtime;
    private boolean gidExAvailable = true;

    private Verbs(LibIbverbs lib) {
        this.lib = lib;
        this.runtime = Runtime.getRuntime(lib);
    }

    static Verbs load() {
        return load(LIBRARY);
    }

    /** Throws {@link VerbsException} naming the library when it is not installed or cannot be bound. */
    static Verbs load(String library) {
        try {
            return new Verbs(LibraryLoader.create(LibIbverbs.class).failImmediately().library(library)
                    .library("c").load());
        } catch (UnsatisfiedLinkError e) {
            throw new VerbsException(library + " not found: " + e.getMessage());
        } catch (RuntimeException | LinkageError e) {
            throw new VerbsException("cannot bind " + library + " through jnr-ffi: " + e);
        }
    }

    /**
     * Devices that could be queried, and for each one that could not, the reason.
     *
     * @param failures device name → "what failed, on what: why"
     */
    record Listing(List<VerbsDevice> devices, Map<String, String> failures) { }

    /** Device names as {@code ibv_get_device_list} returns them; empty (not an error) with no device. */
    List<String> deviceNames() {
        List<String> names = new ArrayList<>();
        try (DeviceList list = deviceList()) {
            list.forEach((name, device) -> names.add(name));
        }
        return names;
    }

    /** Opens, queries and closes every device libibverbs lists. */
    Listing devices() {
        List<VerbsDevice> devices = new ArrayList<>();
        Map<String, String> failures = new LinkedHashMap<>();
        try (DeviceList list = deviceList()) {
            list.forEach((name, device) -> {
                try {
                    devices.add(query(name, device));
                } catch (VerbsException e) {
                    failures.put(name, e.getMessage());
                }
            });
        }
        return new Listing(devices, failures);
    }

    /** Whether GID types come from {@code _ibv_query_gid_ex} (false after it was found missing: rdma-core < v32). */
    boolean gidTypesAvailable() {
        return gidExAvailable;
    }

    /** Forces the {@code ibv_query_gid} path, which has no GID types; for tests of that path on a new rdma-core. */
    void useLegacyGidQuery() {
        gidExAvailable = false;
    }

    private VerbsDevice query(String name, Pointer device) {
        String nodeGuid = VerbsFormat.guid(lib.ibv_get_device_guid(device));
        try (Context ctx = open(name, device)) {
            DeviceAttr attr = new DeviceAttr(runtime);
            Pointer mem = allocate(attr);
            check(lib.ibv_query_device(ctx.pointer, mem), "ibv_query_device " + name);
            List<VerbsDevice.Port> ports = new ArrayList<>();
            for (int p = 1; p <= attr.physPortCnt.get(); p++) {
                ports.add(port(ctx.pointer, name, p));
            }
            return new VerbsDevice(name, nodeGuid, VerbsFormat.guid(bytes(mem, attr.sysImageGuid.offset(), 8)),
                    attr.fwVer.get(), attr.vendorId.get(), attr.vendorPartId.get(), attr.hwVer.get(),
                    attr.maxQp.get(), ports);
        }
    }

    private VerbsDevice.Port port(Pointer ctx, String name, int number) {
        PortAttr attr = new PortAttr(runtime);
        check(lib.ibv_query_port(ctx, (byte) number, allocate(attr)), "ibv_query_port " + name + " port " + number);
        int len = attr.gidTblLen.get();
        String on = name + " port " + number;
        List<VerbsDevice.GidEntry> gids = gidExAvailable ? gidsEx(ctx, on, number, len) : null;
        if (gids == null) {
            gids = gidsLegacy(ctx, on, number, len);
        }
        return new VerbsDevice.Port(number, attr.state.get(), attr.physState.get(), attr.linkLayer.get(),
                attr.maxMtu.get(), attr.activeMtu.get(), len, attr.lid.get(), attr.activeWidth.get(),
                attr.activeSpeed.get(), gids);
    }

    /** Null when {@code _ibv_query_gid_ex} is not exported (rdma-core before v32). */
    private List<VerbsDevice.GidEntry> gidsEx(Pointer ctx, String on, int port, int len) {
        GidEntry entry = new GidEntry(runtime);
        Pointer mem = allocate(entry);
        List<VerbsDevice.GidEntry> gids = new ArrayList<>();
        for (int i = 0; i < len; i++) {
            int rc;
            try {
                rc = lib._ibv_query_gid_ex(ctx, port, i, mem, 0, sizeOf(entry));
            } catch (UnsatisfiedLinkError e) {
                gidExAvailable = false;
                return null;
            }
            if (rc == ENODATA) {
                continue;                                       // an empty entry
            }
            check(rc, "ibv_query_gid_ex " + on + " index " + i);
            byte[] raw = bytes(mem, entry.gid[0].offset(), 16);
            if (!VerbsFormat.isZero(raw)) {
                gids.add(new VerbsDevice.GidEntry(i, VerbsFormat.gid(raw), Optional.of((int) entry.gidType.get()),
                        (int) entry.ndevIfindex.get()));
            }
        }
        return gids;
    }

    private List<VerbsDevice.GidEntry> gidsLegacy(Pointer ctx, String on, int port, int len) {
        Pointer mem = Memory.allocateDirect(runtime, 16, true);
        List<VerbsDevice.GidEntry> gids = new ArrayList<>();
        for (int i = 0; i < len; i++) {
            if (lib.ibv_query_gid(ctx, (byte) port, i, mem) != 0) {
                throw failure("ibv_query_gid " + on + " index " + i, runtime.getLastError());
            }
            byte[] raw = bytes(mem, 0, 16);
            if (!VerbsFormat.isZero(raw)) {
                gids.add(new VerbsDevice.GidEntry(i, VerbsFormat.gid(raw), Optional.empty(), 0));
            }
        }
        return gids;
    }

    private DeviceList deviceList() {
        IntByReference num = new IntByReference();
        Pointer list = lib.ibv_get_device_list(num);
        if (list == null) {
            int errno = runtime.getLastError();
            if (errno == ENOSYS) {
                return new DeviceList(null, 0);      // rdma-core's answer when no uverbs device exists at all
            }
            throw failure("ibv_get_device_list", errno);
        }
        return new DeviceList(list, num.intValue());
    }

    private Context open(String name, Pointer device) {
        Pointer ctx = lib.ibv_open_device(device);
        if (ctx == null) {
            throw failure("ibv_open_device " + name, runtime.getLastError());
        }
        return new Context(name, ctx);
    }

    private Pointer allocate(Struct struct) {
        Pointer mem = Memory.allocateDirect(runtime, sizeOf(struct), true);
        struct.useMemory(mem);
        return mem;
    }

    /**
     * C's {@code sizeof}: jnr's {@link Struct#size} leaves out the tail padding (228 instead of 232 for
     * {@code struct ibv_device_attr}), and the library writes the whole struct.
     */
    static int sizeOf(Struct struct) {
        int align = Struct.alignment(struct);
        return (Struct.size(struct) + align - 1) / align * align;
    }

    private static byte[] bytes(Pointer mem, long offset, int length) {
        byte[] b = new byte[length];
        mem.get(offset, b, 0, length);
        return b;
    }

    /** For calls that return the errno value itself (0 = success). */
    private void check(int rc, String what) {
        if (rc != 0) {
            throw failure(what, rc > 0 ? rc : runtime.getLastError());
        }
    }

    private VerbsException failure(String what, int errno) {
        return new VerbsException(what + ": " + lib.strerror(errno) + " (errno " + errno + ")");
    }

    /** {@code struct ibv_device **}, freed by {@link #close()}. */
    private final class DeviceList implements AutoCloseable {
        private final Pointer list;
        private final int count;

        DeviceList(Pointer list, int count) {
            this.list = list;
            this.count = count;
        }

        void forEach(java.util.function.BiConsumer<String, Pointer> action) {
            int size = runtime.addressSize();
            for (int i = 0; i < count; i++) {
                Pointer device = list.getPointer((long) i * size);
                action.accept(lib.ibv_get_device_name(device), device);
            }
        }

        @Override
        public void close() {
            if (list != null) {
                lib.ibv_free_device_list(list);
            }
        }
    }

    /** An open {@code struct ibv_context *}, closed by {@link #close()}. */
    private final class Context implements AutoCloseable {
        private final String name;
        private final Pointer pointer;

        Context(String name, Pointer pointer) {
            this.name = name;
            this.pointer = pointer;
        }

        @Override
        public void close() {
            if (lib.ibv_close_device(pointer) != 0) {
                throw failure("ibv_close_device " + name, runtime.getLastError());
            }
        }
    }
}
