// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs.internal;

import io.rdmanode.posix.Posix;
import io.rdmanode.verbs.IbvDevice;
import io.rdmanode.verbs.IbvDeviceListing;
import io.rdmanode.verbs.IbvGid;
import io.rdmanode.verbs.IbvPort;
import io.rdmanode.verbs.VerbsException;
import io.rdmanode.verbs.internal.LibIbverbs.DeviceAttr;
import io.rdmanode.verbs.internal.LibIbverbs.GidEntry;
import io.rdmanode.verbs.internal.LibIbverbs.PortAttr;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import jnr.ffi.byref.IntByReference;

/**
 * The query calls: turns NULL/-1+errno/errno returns into {@link VerbsException}s that name the call and the
 * device. Every device list is freed and every opened context closed, also when a query fails. Not
 * thread-safe: {@link LibibverbsRdmaVerbs} serialises the calls.
 */
final class DeviceQueries {

    private static final int ENOSYS = 38;

    private final LibIbverbs lib;
    private final Runtime runtime;
    private boolean gidTableAvailable = true;
    private long contextsOpened;

    DeviceQueries(LibIbverbs lib) {
        this.lib = lib;
        this.runtime = Runtime.getRuntime(lib);
    }

    /** Device names as {@code ibv_get_device_list} returns them; empty (not an error) with no device. */
    List<String> deviceNames() {
        List<String> names = new ArrayList<>();
        try (DeviceList list = deviceList()) {
            list.forEach((name, device) -> names.add(name));
        }
        return names;
    }

    /** Opens, queries and closes every device libibverbs lists. */
    IbvDeviceListing devices() {
        return devices(name -> Optional.empty());
    }

    /**
     * Like {@link #devices()}, but a device for which {@code cached} has an answer is taken from there instead
     * of being opened again (incremental updates re-query only what changed).
     */
    IbvDeviceListing devices(Function<String, Optional<IbvDevice>> cached) {
        List<IbvDevice> devices = new ArrayList<>();
        Map<String, String> failures = new LinkedHashMap<>();
        try (DeviceList list = deviceList()) {
            list.forEach((name, device) -> {
                try {
                    devices.add(cached.apply(name).orElseGet(() -> query(name, device)));
                } catch (VerbsException e) {
                    failures.put(name, e.getMessage());
                }
            });
        }
        return new IbvDeviceListing(devices, failures);
    }

    /** How many device contexts this instance has opened (each one is closed again right away). */
    long contextsOpened() {
        return contextsOpened;
    }

    /** Whether GID types come from {@code _ibv_query_gid_table} (false after it was found missing: rdma-core < v32). */
    boolean gidTypesAvailable() {
        return gidTableAvailable;
    }

    /** Forces the {@code ibv_query_gid} path, which has no GID types; for tests of that path on a new rdma-core. */
    void useLegacyGidQuery() {
        gidTableAvailable = false;
    }

    private IbvDevice query(String name, Pointer device) {
        String nodeGuid = IbvFormat.guid(lib.ibv_get_device_guid(device));
        try (Context ctx = open(name, device)) {
            DeviceAttr attr = new DeviceAttr(runtime);
            Pointer mem = allocate(attr);
            check(lib.ibv_query_device(ctx.pointer, mem), "ibv_query_device " + name);
            List<IbvPort> ports = ports(ctx.pointer, name, attr.physPortCnt.get());
            return new IbvDevice(name, nodeGuid, IbvFormat.guid(bytes(mem, attr.sysImageGuid.offset(), 8)),
                    attr.fwVer.get(), attr.vendorId.get(), attr.vendorPartId.get(), attr.hwVer.get(),
                    attr.maxQp.get(), ports);
        }
    }

    private List<IbvPort> ports(Pointer ctx, String name, int count) {
        List<PortAttr> attrs = new ArrayList<>();
        long gidCapacity = 0;
        for (int p = 1; p <= count; p++) {
            PortAttr port = new PortAttr(runtime);
            check(lib.ibv_query_port(ctx, (byte) p, allocate(port)), "ibv_query_port " + name + " port " + p);
            attrs.add(port);
            gidCapacity += Math.max(0, port.gidTblLen.get());
        }
        Map<Integer, List<IbvGid>> table = gidTableAvailable ? gidTable(ctx, name, gidCapacity) : null;
        List<IbvPort> ports = new ArrayList<>();
        for (int i = 0; i < attrs.size(); i++) {
            int number = i + 1;
            PortAttr a = attrs.get(i);
            List<IbvGid> gids = table != null ? table.getOrDefault(number, List.of())
                    : gidsLegacy(ctx, name + " port " + number, number, a.gidTblLen.get());
            ports.add(new IbvPort(number, a.state.get(), a.physState.get(), a.linkLayer.get(),
                    a.maxMtu.get(), a.activeMtu.get(), a.gidTblLen.get(), a.lid.get(), a.activeWidth.get(),
                    a.activeSpeed.get(), gids));
        }
        return ports;
    }

    /** Valid GIDs of every port by port number; null when {@code _ibv_query_gid_table} is not exported. */
    private Map<Integer, List<IbvGid>> gidTable(Pointer ctx, String name, long capacity) {
        Map<Integer, List<IbvGid>> byPort = new TreeMap<>();
        if (capacity == 0) {
            return byPort;
        }
        int size = sizeOf(new GidEntry(runtime));
        Pointer mem = Memory.allocateDirect(runtime, size * capacity, true);
        long n;
        try {
            n = lib._ibv_query_gid_table(ctx, mem, capacity, 0, size);
        } catch (UnsatisfiedLinkError e) {
            gidTableAvailable = false;
            return null;
        }
        if (n < 0) {
            throw failure("ibv_query_gid_table " + name, (int) -n);
        }
        for (long i = 0; i < n; i++) {
            GidEntry e = new GidEntry(runtime);
            e.useMemory(mem.slice(i * size, size));
            byte[] raw = bytes(mem, i * size + e.gid[0].offset(), 16);
            if (!IbvFormat.isZero(raw)) {
                byPort.computeIfAbsent((int) e.portNum.get(), p -> new ArrayList<>()).add(new IbvGid(
                        (int) e.gidIndex.get(), IbvFormat.gid(raw), Optional.of((int) e.gidType.get()),
                        (int) e.ndevIfindex.get()));
            }
        }
        byPort.values().forEach(l -> l.sort(Comparator.comparingInt(IbvGid::index)));
        return byPort;
    }

    private List<IbvGid> gidsLegacy(Pointer ctx, String on, int port, int len) {
        Pointer mem = Memory.allocateDirect(runtime, 16, true);
        List<IbvGid> gids = new ArrayList<>();
        for (int i = 0; i < len; i++) {
            if (lib.ibv_query_gid(ctx, (byte) port, i, mem) != 0) {
                throw failure("ibv_query_gid " + on + " index " + i, runtime.getLastError());
            }
            byte[] raw = bytes(mem, 0, 16);
            if (!IbvFormat.isZero(raw)) {
                gids.add(new IbvGid(i, IbvFormat.gid(raw), Optional.empty(), 0));
            }
        }
        return gids;
    }

    DeviceList deviceList() {
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
        contextsOpened++;
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

    VerbsException failure(String what, int errno) {
        return new VerbsException(what + ": " + describe(errno));
    }

    /** {@code strerror(3)} and the number: "Permission denied (errno 13)". */
    String describe(int errno) {
        return Posix.libc().strerror(errno) + " (errno " + errno + ")";
    }

    /** {@code struct ibv_device **}, freed by {@link #close()}. */
    final class DeviceList implements AutoCloseable {
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
