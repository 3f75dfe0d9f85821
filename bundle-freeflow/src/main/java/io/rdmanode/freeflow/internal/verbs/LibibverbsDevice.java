// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.verbs;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;
import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.WireException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.byref.IntByReference;

/**
 * {@link VerbsDevice} over libibverbs.so.1 through jnr-ffi (the jnr-ffi of the posix bundle). The data-path calls
 * are static inline in verbs.h: they are the provider's function pointers in {@code struct ibv_context}'s ops,
 * read once at open and invoked through jffi with their C signatures.
 */
public final class LibibverbsDevice implements VerbsDevice {
    private static final MemoryIO MEM = MemoryIO.getInstance();
    /** {@code int (*)(void *, void *, void **)}: post_send, post_recv, post_srq_recv. */
    private static final CallContext POST = CallContext.getCallContext(Type.SINT,
            new Type[] {Type.POINTER, Type.POINTER, Type.POINTER}, CallingConvention.DEFAULT, false);
    /** {@code int (*)(struct ibv_cq *, int)}: req_notify_cq. */
    private static final CallContext NOTIFY = CallContext.getCallContext(Type.SINT,
            new Type[] {Type.POINTER, Type.SINT}, CallingConvention.DEFAULT, false);
    /** {@code int (*)(struct ibv_cq *, int, struct ibv_wc *)}. */
    private static final CallContext POLL = CallContext.getCallContext(Type.SINT,
            new Type[] {Type.POINTER, Type.SINT, Type.POINTER}, CallingConvention.DEFAULT, false);

    private final Ibverbs lib;
    private final Runtime runtime;
    private final String name;
    private final Pointer context;
    private final long postSendFn;
    private final long postRecvFn;
    private final long postSrqRecvFn;
    private final long pollCqFn;
    private final long reqNotifyCqFn;
    private final Pointer channel;
    private final int compFd;
    /** The event thread's out-parameters of ibv_get_cq_event (cq, cq_context). */
    private final Pointer cqEventOut;
    private final int asyncFd;
    /** Scratch for bad_wr, a struct, a GID: one at a time, under the router's monitor. */
    private final Pointer scratch;

    private LibibverbsDevice(Ibverbs lib, String name, Pointer context) {
        this.lib = lib;
        this.runtime = Runtime.getRuntime(lib);
        this.name = name;
        this.context = context;
        long ctx = context.address();
        this.pollCqFn = MEM.getLong(ctx + NativeLayout.CTX_POLL_CQ);
        this.postSendFn = MEM.getLong(ctx + NativeLayout.CTX_POST_SEND);
        this.postRecvFn = MEM.getLong(ctx + NativeLayout.CTX_POST_RECV);
        this.postSrqRecvFn = MEM.getLong(ctx + NativeLayout.CTX_POST_SRQ_RECV);
        this.scratch = Memory.allocateDirect(runtime, 256, true);
        this.cqEventOut = Memory.allocateDirect(runtime, 16, true);
        this.reqNotifyCqFn = MEM.getLong(ctx + NativeLayout.CTX_REQ_NOTIFY_CQ);
        this.asyncFd = MEM.getInt(ctx + NativeLayout.CTX_ASYNC_FD);
        this.channel = lib.ibv_create_comp_channel(context);
        if (channel == null || channel.address() == 0) {
            int errno = runtime.getLastError();
            lib.ibv_close_device(context);
            throw new IllegalArgumentException("freeflow.device " + name + ": ibv_create_comp_channel failed (errno "
                    + errno + ")");
        }
        this.compFd = MEM.getInt(channel.address() + NativeLayout.COMP_CHANNEL_FD);
        // The event thread drains the fd after poll(2) says it is readable, until EAGAIN: it must never block in
        // ibv_get_async_event, or closing the router would wait for the device's next event.
        io.rdmanode.posix.Posix libc = io.rdmanode.posix.Posix.libc();
        for (int fd : new int[] {asyncFd, compFd}) {
            libc.fcntl(fd, io.rdmanode.posix.Posix.F_SETFL,
                    libc.fcntl(fd, io.rdmanode.posix.Posix.F_GETFL, 0) | io.rdmanode.posix.Posix.O_NONBLOCK);
        }
    }

    /** The devices libibverbs lists (empty when it lists none); throws when libibverbs cannot be loaded. */
    public static List<String> deviceNames(String library) {
        Ibverbs lib = load(library);
        IntByReference n = new IntByReference();
        Pointer list = lib.ibv_get_device_list(n);
        List<String> names = new ArrayList<>();
        if (list == null) {
            return names;
        }
        try {
            for (int i = 0; i < n.intValue(); i++) {
                names.add(lib.ibv_get_device_name(list.getPointer((long) i * Runtime.getRuntime(lib).addressSize())));
            }
        } finally {
            lib.ibv_free_device_list(list);
        }
        return names;
    }

    /** Opens the device named {@code name}; IllegalArgumentException names the devices there are when it is absent. */
    public static LibibverbsDevice open(String library, String name) {
        Ibverbs lib = load(library);
        IntByReference n = new IntByReference();
        Pointer list = lib.ibv_get_device_list(n);
        if (list == null) {
            // ENOSYS: no RDMA stack in this kernel (no /sys/class/infiniband_verbs).
            throw new IllegalArgumentException("freeflow.device " + name + " does not exist; libibverbs lists no device"
                    + " (ibv_get_device_list: errno " + Runtime.getRuntime(lib).getLastError() + ")");
        }
        List<String> seen = new ArrayList<>();
        try {
            int size = Runtime.getRuntime(lib).addressSize();
            for (int i = 0; i < n.intValue(); i++) {
                Pointer dev = list.getPointer((long) i * size);
                String devName = lib.ibv_get_device_name(dev);
                seen.add(devName);
                if (name.equals(devName)) {
                    Pointer ctx = lib.ibv_open_device(dev);
                    if (ctx == null) {
                        throw new IllegalArgumentException("freeflow.device " + name + ": ibv_open_device failed (errno "
                                + Runtime.getRuntime(lib).getLastError() + ")");
                    }
                    return new LibibverbsDevice(lib, name, ctx);
                }
            }
        } finally {
            lib.ibv_free_device_list(list);
        }
        throw new IllegalArgumentException("freeflow.device " + name + " does not exist; libibverbs lists "
                + (seen.isEmpty() ? "no device" : String.join(", ", seen)));
    }

    private static Ibverbs load(String library) {
        try {
            return LibraryLoader.create(Ibverbs.class).failImmediately().library(library).load();
        } catch (UnsatisfiedLinkError e) {
            throw new IllegalArgumentException("freeflow.transport verbs: cannot load " + library + ": "
                    + e.getMessage().lines().findFirst().orElse(""), e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Port port() {
        MEM.setMemory(scratch.address(), NativeLayout.PORT_ATTR_SIZE, (byte) 0);
        check(lib.ibv_query_port(context, (byte) 1, scratch), "ibv_query_port");
        return new Port(scratch.getInt(NativeLayout.PORT_STATE), scratch.getInt(NativeLayout.PORT_MAX_MTU),
                scratch.getInt(NativeLayout.PORT_ACTIVE_MTU), scratch.getInt(NativeLayout.PORT_GID_TBL_LEN),
                scratch.getShort(NativeLayout.PORT_LID) & 0xffff, scratch.getByte(NativeLayout.PORT_LINK_LAYER) & 0xff);
    }

    @Override
    public Attr attr() {
        long a = scratch.address();
        MEM.setMemory(a, NativeLayout.DEV_ATTR_SIZE, (byte) 0);
        check(lib.ibv_query_device(context, scratch), "ibv_query_device");
        return new Attr(MEM.getLong(a + NativeLayout.DEV_MAX_MR_SIZE), MEM.getInt(a + NativeLayout.DEV_MAX_QP),
                MEM.getInt(a + NativeLayout.DEV_MAX_QP_WR), MEM.getInt(a + NativeLayout.DEV_MAX_SGE),
                MEM.getInt(a + NativeLayout.DEV_MAX_CQ), MEM.getInt(a + NativeLayout.DEV_MAX_CQE),
                MEM.getInt(a + NativeLayout.DEV_MAX_MR), MEM.getInt(a + NativeLayout.DEV_MAX_PD),
                MEM.getInt(a + NativeLayout.DEV_MAX_QP_RD_ATOM), MEM.getInt(a + NativeLayout.DEV_MAX_SRQ),
                MEM.getInt(a + NativeLayout.DEV_MAX_SRQ_WR), MEM.getInt(a + NativeLayout.DEV_MAX_SRQ_SGE));
    }

    @Override
    public byte[] gid(int index) {
        if (lib.ibv_query_gid(context, (byte) 1, index, scratch) != 0) {
            throw failure("ibv_query_gid");
        }
        byte[] gid = new byte[16];
        scratch.get(0, gid, 0, 16);
        return gid;
    }

    @Override
    public long allocPd() {
        return pointer(lib.ibv_alloc_pd(context), "ibv_alloc_pd");
    }

    @Override
    public void deallocPd(long pd) {
        check(lib.ibv_dealloc_pd(wrap(pd)), "ibv_dealloc_pd");
    }

    @Override
    public Mr regMr(long pd, long addr, long length, int access) {
        long mr = pointer(lib.ibv_reg_mr(wrap(pd), addr, length, access), "ibv_reg_mr");
        return new Mr(mr, MEM.getInt(mr + NativeLayout.MR_LKEY), MEM.getInt(mr + NativeLayout.MR_RKEY));
    }

    @Override
    public void deregMr(long mr) {
        check(lib.ibv_dereg_mr(wrap(mr)), "ibv_dereg_mr");
    }

    @Override
    public long createCq(int cqe) {
        return pointer(lib.ibv_create_cq(context, cqe, null, channel, 0), "ibv_create_cq");
    }

    @Override
    public void reqNotifyCq(long cq, boolean solicitedOnly) {
        int ret = (int) Invoker.getInstance().invokeN2(NOTIFY, reqNotifyCqFn, cq, solicitedOnly ? 1 : 0);
        check(ret, "ibv_req_notify_cq");
    }

    @Override
    public int compFd() {
        return compFd;
    }

    @Override
    public long getCqEvent() {
        if (lib.ibv_get_cq_event(channel, cqEventOut, wrap(cqEventOut.address() + 8)) != 0) {
            int errno = runtime.getLastError();
            if (errno == Errno.EAGAIN) {
                return 0;
            }
            throw new WireException(errno, "ibv_get_cq_event on " + name + " failed (errno " + errno + ")");
        }
        return cqEventOut.getLong(0);
    }

    @Override
    public void ackCqEvents(long cq, int n) {
        lib.ibv_ack_cq_events(wrap(cq), n);
    }

    @Override
    public void destroyCq(long cq) {
        check(lib.ibv_destroy_cq(wrap(cq)), "ibv_destroy_cq");
    }

    @Override
    public Qp createQp(long pd, long sendCq, long recvCq, long srq, int type, int maxSendWr, int maxRecvWr,
                       int maxSendSge, int maxRecvSge, int maxInline, boolean sqSigAll) {
        long a = scratch.address();
        MEM.setMemory(a, NativeLayout.INIT_ATTR_SIZE, (byte) 0);
        MEM.putLong(a + NativeLayout.INIT_SEND_CQ, sendCq);
        MEM.putLong(a + NativeLayout.INIT_RECV_CQ, recvCq);
        MEM.putLong(a + NativeLayout.INIT_SRQ, srq);
        MEM.putInt(a + NativeLayout.INIT_CAP, maxSendWr);
        MEM.putInt(a + NativeLayout.INIT_CAP + 4, maxRecvWr);
        MEM.putInt(a + NativeLayout.INIT_CAP + 8, maxSendSge);
        MEM.putInt(a + NativeLayout.INIT_CAP + 12, maxRecvSge);
        MEM.putInt(a + NativeLayout.INIT_CAP + 16, maxInline);
        MEM.putInt(a + NativeLayout.INIT_QP_TYPE, type);
        MEM.putInt(a + NativeLayout.INIT_SQ_SIG_ALL, sqSigAll ? 1 : 0);
        long qp = pointer(lib.ibv_create_qp(wrap(pd), scratch), "ibv_create_qp");
        return new Qp(qp, MEM.getInt(qp + NativeLayout.QP_NUM));
    }

    @Override
    public void modifyQp(long qp, ByteBuffer attr, int mask) {
        check(lib.ibv_modify_qp(wrap(qp), wrap(address(attr)), mask), "ibv_modify_qp");
    }

    @Override
    public void destroyQp(long qp) {
        check(lib.ibv_destroy_qp(wrap(qp)), "ibv_destroy_qp");
    }

    @Override
    public long createSrq(long pd, int maxWr, int maxSge) {
        long a = scratch.address();
        MEM.setMemory(a, NativeLayout.SRQ_INIT_ATTR_SIZE, (byte) 0);
        MEM.putInt(a + NativeLayout.SRQ_INIT_MAX_WR, maxWr);
        MEM.putInt(a + NativeLayout.SRQ_INIT_MAX_SGE, maxSge);
        return pointer(lib.ibv_create_srq(wrap(pd), scratch), "ibv_create_srq");
    }

    /** IBV_SRQ_MAX_WR of enum ibv_srq_attr_mask. */
    private static final int SRQ_MAX_WR = 1;

    @Override
    public void resizeSrq(long srq, int maxWr) {
        modifySrq(srq, NativeLayout.SRQ_ATTR_MAX_WR, maxWr, SRQ_MAX_WR, "ibv_modify_srq");
    }

    /** IBV_SRQ_LIMIT of enum ibv_srq_attr_mask. */
    private static final int SRQ_LIMIT = 2;

    @Override
    public void armSrq(long srq, int limit) {
        modifySrq(srq, NativeLayout.SRQ_ATTR_LIMIT, limit, SRQ_LIMIT, "ibv_modify_srq (IBV_SRQ_LIMIT)");
    }

    /** ibv_modify_srq with one field of a zeroed ibv_srq_attr set, at {@code offset}, named by {@code mask}. */
    private void modifySrq(long srq, long offset, int value, int mask, String call) {
        long a = scratch.address();
        MEM.setMemory(a, NativeLayout.SRQ_ATTR_SIZE, (byte) 0);
        MEM.putInt(a + offset, value);
        check(lib.ibv_modify_srq(wrap(srq), scratch, mask), call);
    }

    @Override
    public int asyncFd() {
        return asyncFd;
    }

    /** A struct of its own per event (the event thread's, not the monitor's scratch), freed by the ack. */
    @Override
    public AsyncEvent getAsyncEvent() {
        long ev = MEM.allocateMemory(NativeLayout.ASYNC_EVENT_SIZE, true);
        if (lib.ibv_get_async_event(context, wrap(ev)) != 0) {
            int errno = runtime.getLastError();
            MEM.freeMemory(ev);
            if (errno == Errno.EAGAIN) {
                return null;
            }
            throw new WireException(errno, "ibv_get_async_event on " + name + " failed (errno " + errno + ")");
        }
        int type = MEM.getInt(ev + NativeLayout.ASYNC_EVENT_TYPE);
        long element = MEM.getLong(ev + NativeLayout.ASYNC_ELEMENT);
        return new AsyncEvent(type, element, ev);
    }

    @Override
    public void ackAsyncEvent(AsyncEvent event) {
        lib.ibv_ack_async_event(wrap(event.nativeEvent()));
        MEM.freeMemory(event.nativeEvent());
    }

    @Override
    public void destroySrq(long srq) {
        check(lib.ibv_destroy_srq(wrap(srq)), "ibv_destroy_srq");
    }

    @Override
    public long createAh(long pd, ByteBuffer attr) {
        return pointer(lib.ibv_create_ah(wrap(pd), wrap(address(attr))), "ibv_create_ah");
    }

    @Override
    public void destroyAh(long ah) {
        check(lib.ibv_destroy_ah(wrap(ah)), "ibv_destroy_ah");
    }

    @Override
    public Posted postSend(long qp, ByteBuffer wrs) {
        return post(postSendFn, qp, wrs, NativeLayout.SEND_WR_SIZE);
    }

    @Override
    public Posted postRecv(long qp, ByteBuffer wrs) {
        return post(postRecvFn, qp, wrs, NativeLayout.RECV_WR_SIZE);
    }

    @Override
    public Posted postSrqRecv(long srq, ByteBuffer wrs) {
        return post(postSrqRecvFn, srq, wrs, NativeLayout.RECV_WR_SIZE);
    }

    private Posted post(long fn, long qp, ByteBuffer wrs, int stride) {
        long base = address(wrs);
        long bad = scratch.address();
        MEM.putLong(bad, 0L);
        int ret = (int) Invoker.getInstance().invokeN3(POST, fn, qp, base, bad);
        if (ret == 0) {
            return new Posted(0, 0);
        }
        long at = MEM.getLong(bad);
        int index = at >= base ? (int) ((at - base) / stride) + 1 : 1;
        return new Posted(ret < 0 ? -ret : ret, index);
    }

    @Override
    public int pollCq(long cq, int n, ByteBuffer wcs) {
        return (int) Invoker.getInstance().invokeN3(POLL, pollCqFn, cq, n, address(wcs));
    }

    @Override
    public long address(ByteBuffer direct) {
        return MEM.getDirectBufferAddress(direct);
    }

    /** After every CQ is destroyed (the channel refuses to go before them). */
    @Override
    public void close() {
        lib.ibv_destroy_comp_channel(channel);
        lib.ibv_close_device(context);
    }

    private Pointer wrap(long address) {
        return Pointer.wrap(runtime, address);
    }

    private long pointer(Pointer p, String call) {
        if (p == null || p.address() == 0) {
            throw failure(call);
        }
        return p.address();
    }

    private WireException failure(String call) {
        int errno = runtime.getLastError();
        return new WireException(errno == 0 ? Errno.ENOMEM : errno, call + " on " + name + " failed (errno " + errno + ")");
    }

    private void check(int ret, String call) {
        if (ret != 0) {
            throw new WireException(ret < 0 ? Errno.EINVAL : ret, call + " on " + name + " failed (" + ret + ")");
        }
    }
}
