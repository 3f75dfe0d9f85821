// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs.internal;

import jnr.ffi.Pointer;
import jnr.ffi.Struct;
import jnr.ffi.byref.IntByReference;
import jnr.ffi.types.size_t;
import jnr.ffi.types.ssize_t;

/**
 * libibverbs.so.1 ({@code infiniband/verbs.h}, rdma-core): the only file with verbs C signatures and struct
 * layouts. The layouts are LP64 (x86-64 and aarch64 alike) and are checked against gcc's {@code offsetof} by
 * {@code LibIbverbsLayoutTest} ({@code src/test/resources/verbs/ibv_layout.c}).
 *
 * <p>Return conventions differ per call, which is why they are noted here: NULL + errno, -1 + errno, or the
 * errno value itself. Their text ({@code strerror}) comes from libc through the posix bundle.
 */
public interface LibIbverbs {

    /** {@code struct ibv_device **ibv_get_device_list(int *num_devices)}; NULL + errno on failure. */
    Pointer ibv_get_device_list(IntByReference numDevices);

    void ibv_free_device_list(Pointer list);

    String ibv_get_device_name(Pointer device);

    /** {@code __be64 ibv_get_device_guid(struct ibv_device *)}: big-endian in a host integer. */
    long ibv_get_device_guid(Pointer device);

    /** {@code struct ibv_context *ibv_open_device(struct ibv_device *)}: NULL + errno on failure. */
    Pointer ibv_open_device(Pointer device);

    /** {@code int ibv_close_device(struct ibv_context *)}: 0, or -1 + errno. */
    int ibv_close_device(Pointer context);

    /** {@code int ibv_query_device(struct ibv_context *, struct ibv_device_attr *)}: 0 or an errno value. */
    int ibv_query_device(Pointer context, Pointer deviceAttr);

    /**
     * {@code ibv_query_port@@IBVERBS_1.1}. The header's {@code ibv_query_port} is a macro around the inline
     * {@code ___ibv_query_port}, which goes through the provider's extended op; the exported symbol takes
     * {@code struct _compat_ibv_port_attr *} and fills the fields up to {@code flags} (rdma-core
     * {@code __lib_query_port(..., sizeof(struct _compat_ibv_port_attr))}). Pass a full {@link PortAttr}, as
     * the inline wrapper itself does. Returns 0 or an errno value.
     */
    int ibv_query_port(Pointer context, byte portNum, Pointer portAttr);

    /** {@code int ibv_query_gid(ctx, uint8_t port_num, int index, union ibv_gid *)}: 0, or -1 + errno. */
    int ibv_query_gid(Pointer context, byte portNum, int index, Pointer gid);

    /**
     * {@code ssize_t _ibv_query_gid_table(ctx, struct ibv_gid_entry *entries, size_t max_entries,
     * uint32_t flags, size_t entry_size)} ({@code IBVERBS_1.11}, rdma-core v32+; the header's
     * {@code ibv_query_gid_table} is an inline wrapper): every valid entry of every port, with its type and
     * netdev, in one call. Returns the number of entries, or a negative errno value.
     */
    @ssize_t long _ibv_query_gid_table(Pointer context, Pointer entries, @size_t long maxEntries, int flags,
                                       @size_t long entrySize);

    /** {@code struct ibv_device_attr}: every member is declared so that jnr computes the C offsets. */
    final class DeviceAttr extends Struct {
        public final UTF8String fwVer = new UTF8String(64);
        public final Unsigned64 nodeGuid = new Unsigned64();          // __be64
        public final Unsigned64 sysImageGuid = new Unsigned64();      // __be64
        public final Unsigned64 maxMrSize = new Unsigned64();
        public final Unsigned64 pageSizeCap = new Unsigned64();
        public final Unsigned32 vendorId = new Unsigned32();
        public final Unsigned32 vendorPartId = new Unsigned32();
        public final Unsigned32 hwVer = new Unsigned32();
        public final Signed32 maxQp = new Signed32();
        public final Signed32 maxQpWr = new Signed32();
        public final Unsigned32 deviceCapFlags = new Unsigned32();
        public final Signed32 maxSge = new Signed32();
        public final Signed32 maxSgeRd = new Signed32();
        public final Signed32 maxCq = new Signed32();
        public final Signed32 maxCqe = new Signed32();
        public final Signed32 maxMr = new Signed32();
        public final Signed32 maxPd = new Signed32();
        public final Signed32 maxQpRdAtom = new Signed32();
        public final Signed32 maxEeRdAtom = new Signed32();
        public final Signed32 maxResRdAtom = new Signed32();
        public final Signed32 maxQpInitRdAtom = new Signed32();
        public final Signed32 maxEeInitRdAtom = new Signed32();
        public final Signed32 atomicCap = new Signed32();             // enum ibv_atomic_cap
        public final Signed32 maxEe = new Signed32();
        public final Signed32 maxRdd = new Signed32();
        public final Signed32 maxMw = new Signed32();
        public final Signed32 maxRawIpv6Qp = new Signed32();
        public final Signed32 maxRawEthyQp = new Signed32();
        public final Signed32 maxMcastGrp = new Signed32();
        public final Signed32 maxMcastQpAttach = new Signed32();
        public final Signed32 maxTotalMcastQpAttach = new Signed32();
        public final Signed32 maxAh = new Signed32();
        public final Signed32 maxFmr = new Signed32();
        public final Signed32 maxMapPerFmr = new Signed32();
        public final Signed32 maxSrq = new Signed32();
        public final Signed32 maxSrqWr = new Signed32();
        public final Signed32 maxSrqSge = new Signed32();
        public final Unsigned16 maxPkeys = new Unsigned16();
        public final Unsigned8 localCaAckDelay = new Unsigned8();
        public final Unsigned8 physPortCnt = new Unsigned8();

        public DeviceAttr(jnr.ffi.Runtime runtime) {
            super(runtime);
        }
    }

    /**
     * {@code struct ibv_port_attr} (rdma-core v44). {@code ibv_query_port@@IBVERBS_1.1} fills up to
     * {@code flags}; {@code port_cap_flags2} is declared for the size and stays zero.
     */
    final class PortAttr extends Struct {
        public final Signed32 state = new Signed32();                 // enum ibv_port_state
        public final Signed32 maxMtu = new Signed32();                // enum ibv_mtu
        public final Signed32 activeMtu = new Signed32();
        public final Signed32 gidTblLen = new Signed32();
        public final Unsigned32 portCapFlags = new Unsigned32();
        public final Unsigned32 maxMsgSz = new Unsigned32();
        public final Unsigned32 badPkeyCntr = new Unsigned32();
        public final Unsigned32 qkeyViolCntr = new Unsigned32();
        public final Unsigned16 pkeyTblLen = new Unsigned16();
        public final Unsigned16 lid = new Unsigned16();
        public final Unsigned16 smLid = new Unsigned16();
        public final Unsigned8 lmc = new Unsigned8();
        public final Unsigned8 maxVlNum = new Unsigned8();
        public final Unsigned8 smSl = new Unsigned8();
        public final Unsigned8 subnetTimeout = new Unsigned8();
        public final Unsigned8 initTypeReply = new Unsigned8();
        public final Unsigned8 activeWidth = new Unsigned8();
        public final Unsigned8 activeSpeed = new Unsigned8();
        public final Unsigned8 physState = new Unsigned8();
        public final Unsigned8 linkLayer = new Unsigned8();
        public final Unsigned8 flags = new Unsigned8();
        public final Unsigned16 portCapFlags2 = new Unsigned16();

        public PortAttr(jnr.ffi.Runtime runtime) {
            super(runtime);
        }
    }

    /** {@code struct ibv_gid_entry}: the 16-byte {@code union ibv_gid}, then index, port, type, ifindex. */
    final class GidEntry extends Struct {
        public final Unsigned8[] gid = array(new Unsigned8[16]);
        public final Unsigned32 gidIndex = new Unsigned32();
        public final Unsigned32 portNum = new Unsigned32();
        public final Unsigned32 gidType = new Unsigned32();          // enum ibv_gid_type
        public final Unsigned32 ndevIfindex = new Unsigned32();

        public GidEntry(jnr.ffi.Runtime runtime) {
            super(runtime);
        }
    }

    /**
     * {@code int ibv_get_async_event(struct ibv_context *, struct ibv_async_event *)}: 0, or -1 + errno
     * ({@code EAGAIN} when the context's {@code async_fd} is non-blocking and nothing is queued).
     */
    int ibv_get_async_event(Pointer context, Pointer event);

    /** {@code void ibv_ack_async_event(struct ibv_async_event *)}: every event got must be acknowledged. */
    void ibv_ack_async_event(Pointer event);

    /**
     * The first members of {@code struct ibv_context}, up to {@code async_fd} (the fd to poll for async
     * events); {@code struct ibv_context_ops} is 32 pointers. libibverbs allocates the struct, we only read it.
     */
    final class ContextHead extends Struct {
        public final Pointer device = new Pointer();
        public final Pointer[] ops = array(new Pointer[32]);
        public final Signed32 cmdFd = new Signed32();
        public final Signed32 asyncFd = new Signed32();
        public final Signed32 numCompVectors = new Signed32();

        public ContextHead(jnr.ffi.Runtime runtime) {
            super(runtime);
        }
    }

    /** {@code struct ibv_async_event}: a union of object pointers and {@code int port_num}, then the type. */
    final class AsyncEventStruct extends Struct {
        public final Pointer element = new Pointer();       // int port_num is its first 4 bytes
        public final Signed32 eventType = new Signed32();   // enum ibv_event_type

        public AsyncEventStruct(jnr.ffi.Runtime runtime) {
            super(runtime);
        }
    }
}
