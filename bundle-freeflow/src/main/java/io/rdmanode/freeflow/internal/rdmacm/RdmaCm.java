// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.Func;
import io.rdmanode.freeflow.internal.wire.Wire;
import io.rdmanode.freeflow.internal.wire.WireException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * rdma_cm for the verbs transport, as the genuine router does it (freeflow.md §2.7): a real rdma_cm file per
 * client event channel, on which each CM_* request is replayed as a kernel UCMA command ({@link UcmaCommand}),
 * with the overlay addresses mapped to host ones ({@link AddressMap}); the kernel's CM does the connection
 * handshake. The QPs the client connects are the verbs transport's device QPs: CONNECT and ACCEPT carry their real
 * QPN, and the client moves them through INIT/RTR/RTS with INIT_QP_ATTR's answer and its own MODIFY_QP.
 *
 * <p>Events: one thread ({@code rdma-agent-freeflow-cm}) polls every channel's file and fetches each event as the
 * kernel reports it (the files are non-blocking), then hands it to a parked CM_GET_EVENT or queues it and counts
 * it on the channel's eventfd, which the client may poll as it would the rdma_cm file.
 *
 * <p>Isolation: a request names a channel by number and is refused (EBADF) unless the caller created it; a cm_id
 * must be one the caller holds on that channel (ENOENT; the kernel would also refuse an id of another file); a
 * CONNECT or ACCEPT must name one of the caller's QPs (EACCES). The client's header fields and pointers never
 * reach the kernel. Owners are opaque: the router's tenants.
 */
public final class RdmaCm implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaCm.class);
    static final int CONNECT_REQUEST = 4;
    static final int EBADF = 9;
    /** cm_ids a client may create on one channel (connection requests from peers are not refused). */
    static final int MAX_IDS = 1024;
    /**
     * Events queued on one channel that its client has not taken. At the bound the channel's file is not read: the
     * kernel keeps what follows, and its listen backlog refuses further connection requests, so a client that never
     * asks for its events (or a peer flooding a listener) holds no more router memory than this.
     */
    static final int MAX_QUEUED_EVENTS = 256;
    private static final int EAGAIN = 11;
    private static final int IBV_QPS_RTR = 2;
    private static final int IB_QP_AV = 1 << 7;

    private final Ucma ucma;
    private final IntSupplier maxChannels;
    /** By owner and the channel's number in the owner's requests. */
    private final Map<Key, CmChannel> channels = new HashMap<>();
    private final CmCounts counts = new CmCounts();
    private final int wake;
    private final Thread thread;
    private volatile AddressMap map = AddressMap.EMPTY;
    private volatile boolean running = true;

    /** rdma_cm on the kernel's {@code /dev/infiniband/rdma_cm}. */
    public static RdmaCm open(IntSupplier maxChannels) {
        return new RdmaCm(new KernelUcma(), maxChannels);
    }

    RdmaCm(Ucma ucma, IntSupplier maxChannels) {
        this.ucma = ucma;
        this.maxChannels = maxChannels;
        this.wake = ucma.eventfd();
        this.thread = new Thread(this::run, "rdma-agent-freeflow-cm");
        thread.setDaemon(true);
        thread.start();
    }

    /** Replaces the overlay map; requests after this one use it. */
    public void addressMap(AddressMap m) {
        if (!java.util.Arrays.equals(m.entries(), map.entries())) {
            LOG.info("freeflow rdma_cm address map: {}", String.join(", ", m.entries()));
        }
        map = m;
    }

    public AddressMap addressMap() {
        return map;
    }

    private record Key(Object owner, int number) {
    }

    /**
     * CM_CREATE_EVENT_CHANNEL: a new rdma_cm file and the eventfd the client gets ({@code eventFd()}), numbered
     * for the client from 1 up, the lowest free number first. Small numbers on purpose: the genuine client's
     * rdma_destroy_event_channel sends CM_CREATE_EVENT_CHANNEL and reads its 8-byte answer into a 4-byte struct,
     * so ec.fd lands in the stack word after it; built with gcc 12 that is the answer's length, and a number above
     * 8 makes it wait for bytes that never come (seen with rping). The genuine router answers its kernel fd number.
     */
    public CmChannel createChannel(Object owner) {
        try {
            return openChannel(owner);
        } catch (WireException e) {
            counts.refused(owner);
            throw e;
        }
    }

    private CmChannel openChannel(Object owner) {
        int cap = maxChannels.getAsInt();
        int number = 1;
        synchronized (channels) {
            long held = channels.keySet().stream().filter(k -> k.owner() == owner).count();
            if (held >= cap) {
                throw new WireException(Errno.EMFILE, "rdma_cm event channels: " + held + " held, limit " + cap);
            }
            while (channels.containsKey(new Key(owner, number))) {
                number++;
            }
            channels.put(new Key(owner, number), null);      // reserved while the files open
        }
        int kernel = -1;
        CmChannel ch;
        try {
            kernel = ucma.open();
            ch = new CmChannel(owner, number, kernel, ucma.eventfd());
        } catch (RuntimeException e) {
            if (kernel >= 0) {
                ucma.close(kernel);
            }
            synchronized (channels) {
                channels.remove(new Key(owner, number));
            }
            throw e;
        }
        synchronized (channels) {
            channels.put(new Key(owner, number), ch);
        }
        ucma.count(wake, 1);
        return ch;
    }

    /** CM_DESTROY_EVENT_CHANNEL (the genuine client never sends it: its destroy sends CREATE by mistake). */
    public void destroyChannel(Object owner, int number) {
        CmChannel ch = counted(owner, number);
        synchronized (channels) {
            channels.remove(new Key(owner, number));
        }
        close(ch);
    }

    private void close(CmChannel ch) {
        List<CmEventWaiter> parked;
        synchronized (ch) {
            if (ch.closed) {
                return;
            }
            ch.closed = true;
            ch.events.clear();
            parked = new ArrayList<>(ch.waiters);
            ch.waiters.clear();
            ucma.close(ch.kernelFd);                     // the kernel destroys the file's cm_ids
            ucma.close(ch.eventFd);
        }
        for (CmEventWaiter w : parked) {
            if (w.claim()) {
                w.abandon();
            }
        }
    }

    /** Every channel of {@code owner} closed: its client is gone. Returns how many. */
    public int reclaim(Object owner) {
        List<CmChannel> mine = new ArrayList<>();
        synchronized (channels) {
            channels.values().removeIf(c -> c != null && c.owner == owner && mine.add(c));
        }
        mine.forEach(this::close);
        counts.forget(owner);
        return mine.size();
    }

    /** {@link #channel}, a refusal counted as the owner's error. */
    private CmChannel counted(Object owner, int number) {
        try {
            return channel(owner, number);
        } catch (WireException e) {
            counts.refused(owner);
            throw e;
        }
    }

    CmChannel channel(Object owner, int number) {
        CmChannel ch;
        synchronized (channels) {
            ch = channels.get(new Key(owner, number));
        }
        if (ch == null || ch.owner != owner) {
            throw new WireException(EBADF, "event channel " + number + " is not this client's");
        }
        return ch;
    }

    /**
     * Executes one CM_* request (not CREATE/DESTROY_EVENT_CHANNEL or GET_EVENT) on its channel's file and returns
     * the answer of {@code answerSize} bytes. A refusal throws WireException with the errno: the router's own
     * checks, or the kernel's.
     */
    public ByteBuffer execute(Object owner, IntPredicate ownsQpn, int func, ByteBuffer body, int answerSize) {
        try {
            return replay(owner, ownsQpn, func, body, answerSize);
        } catch (WireException e) {
            counts.refused(owner);
            throw e;
        }
    }

    private ByteBuffer replay(Object owner, IntPredicate ownsQpn, int func, ByteBuffer body, int answerSize) {
        UcmaCommand cmd = UcmaCommand.of(func);
        if (cmd == null || func == Func.CM_GET_EVENT) {
            throw new WireException(Errno.EOPNOTSUPP, "function " + func + " is no UCMA command");
        }
        CmChannel ch = channel(owner, body.getInt(0));
        ByteBuffer k = cmd.kernelCommand(body);
        int qpnAt = cmd.qpNumOffset();
        if (qpnAt >= 0 && k.getInt(qpnAt) != 0 && !ownsQpn.test(k.getInt(qpnAt))) {
            throw new WireException(Errno.EACCES, "QP number " + Integer.toUnsignedString(k.getInt(qpnAt))
                    + " is not one of this client's QPs");
        }
        int[] s = cmd.sockaddrs();
        AddressMap m = map;
        for (int i = 0; i < s.length; i += 3) {
            boolean mapped = m.rewrite(k, s[i], s[i + 1], s[i + 2]);
            LOG.debug("freeflow rdma_cm function {}: address family {} at {}{}", func, k.getShort(s[i]), s[i],
                    mapped ? ", mapped" : "");
        }
        ByteBuffer buffer = cmd.out() > 0 ? Wire.allocate(cmd.out()) : null;
        if (func == Func.CM_SET_OPTION) {
            int len = k.getInt(28);
            if (len < 0 || len > UcmaCommand.OPTVAL_MAX) {
                throw new WireException(Errno.EINVAL, "option length " + len + ", at most "
                        + UcmaCommand.OPTVAL_MAX);
            }
            buffer = Wire.allocate(Math.max(len, 1));
            buffer.put(0, body, UcmaCommand.OPTVAL_AT, len);
        }
        synchronized (ch) {
            if (ch.closed) {
                throw new WireException(EBADF, "event channel " + ch.number + " is closed");
            }
            int id = cmd.idOffset() >= 0 ? k.getInt(cmd.idOffset()) : 0;
            CmChannel target = prepare(owner, ch, cmd, k, id);
            int errno = ucma.write(ch.kernelFd, k, cmd.pointerSlot(), buffer);
            if (errno != 0) {
                throw new WireException(errno, "rdma_cm command " + cmd.kernelCmd() + " refused by the kernel");
            }
            done(ch, target, cmd, id, buffer);
        }
        if (cmd.kernelCmd() == UcmaCommand.CONNECT) {
            counts.connected(owner);
        } else if (func == Func.CM_ACCEPT) {
            counts.accepted(owner);                     // not PROCESS_CONN_RESP: the active side's half
        }
        ByteBuffer answer = Wire.allocate(answerSize);
        if (buffer != null && func != Func.CM_SET_OPTION) {
            answer.put(cmd.answerAt(), buffer, 0, Math.min(buffer.capacity(), answerSize - cmd.answerAt()));
        }
        return answer;
    }

    /** The checks on the channel's ids before the kernel sees the command; MIGRATE_ID's target channel. */
    private CmChannel prepare(Object owner, CmChannel ch, UcmaCommand cmd, ByteBuffer k, int id) {
        if (cmd.idOffset() >= 0) {
            if (!ch.ids.contains(id)) {
                throw new WireException(Errno.ENOENT, "cm_id " + id + " is not on event channel " + ch.number);
            }
        } else if (cmd.kernelCmd() == UcmaCommand.CREATE_ID && ch.ids.size() >= MAX_IDS) {
            throw new WireException(Errno.EMFILE, "cm_ids on event channel " + ch.number + ": limit " + MAX_IDS);
        }
        if (cmd.kernelCmd() != UcmaCommand.MIGRATE_ID) {
            return null;
        }
        CmChannel target = channel(owner, k.getInt(20));
        k.putInt(20, target.kernelFd);
        return target;
    }

    private void done(CmChannel ch, CmChannel target, UcmaCommand cmd, int id, ByteBuffer buffer) {
        switch (cmd.kernelCmd()) {
            case UcmaCommand.CREATE_ID -> ch.ids.add(buffer.getInt(0));
            case UcmaCommand.INIT_QP_ATTR -> route(ch, id, buffer);
            case UcmaCommand.DESTROY_ID -> {
                ch.ids.remove(id);
                ch.routes.remove(id);
                buffer.putInt(0, buffer.getInt(0) - ch.drop(id));
            }
            case UcmaCommand.MIGRATE_ID -> {
                ch.ids.remove(id);
                ch.routes.remove(id);
                int dropped = ch.drop(id);
                buffer.putInt(0, buffer.getInt(0) - dropped);
                synchronized (target) {
                    target.ids.add(id);
                }
            }
            default -> {
            }
        }
    }

    /**
     * Keeps the address of an INIT_QP_ATTR answer for RTR ({@code struct ib_uverbs_qp_attr}: qp_state at 4,
     * dest_qp_num at 32, ah_attr at 40 with the GID at 40 and sgid_index at 60, is_global at 69): the kernel's route,
     * whose source GID the peer's CM was told in the REQ or REP.
     */
    private static void route(CmChannel ch, int id, ByteBuffer attr) {
        if (attr.getInt(4) != IBV_QPS_RTR || (attr.getInt(0) & IB_QP_AV) == 0 || attr.get(69) == 0) {
            return;
        }
        byte[] dgid = new byte[16];
        attr.get(40, dgid);
        ch.routes.put(id, new CmChannel.Route(attr.getInt(32), dgid, Byte.toUnsignedInt(attr.get(60))));
    }

    /**
     * The device's source GID index for a QP of {@code owner} given the address {@code destQpn}, {@code dgid},
     * {@code sgidIndex}: the route's, when an INIT_QP_ATTR of one of owner's cm_ids answered exactly that (the client
     * moving its QP with the CM's attributes, as librdmacm does); else -1 (the transport's configured one). The
     * peer's CM expects the connection's packets from the route's source GID, which may not be the configured one
     * (an IPv4 or global address rather than the link-local GID 0); a device that checks the source (rxe does, for
     * RC and UC) would drop them.
     */
    public int routeGidIndex(Object owner, int destQpn, byte[] dgid, int sgidIndex) {
        List<CmChannel> mine;
        synchronized (channels) {
            mine = channels.values().stream().filter(c -> c != null && c.owner == owner).toList();
        }
        for (CmChannel ch : mine) {
            synchronized (ch) {
                for (CmChannel.Route r : ch.routes.values()) {
                    if (r.destQpn() == destQpn && r.sgidIndex() == sgidIndex && java.util.Arrays.equals(r.dgid(), dgid)) {
                        return r.sgidIndex();
                    }
                }
            }
        }
        return -1;
    }

    /**
     * CM_GET_EVENT: the channel's next event now (its answer), or null with {@code waiter} parked until one
     * comes. EBADF for a channel that is not the caller's.
     */
    public ByteBuffer nextEvent(Object owner, int number, CmEventWaiter waiter) {
        CmChannel ch = counted(owner, number);
        synchronized (ch) {
            if (ch.closed) {
                throw new WireException(EBADF, "event channel " + number + " is closed");
            }
            boolean wasFull = ch.events.size() >= MAX_QUEUED_EVENTS;
            ByteBuffer e = ch.events.poll();
            if (e != null) {
                ucma.count(ch.eventFd, -1);
                if (wasFull) {
                    ucma.count(wake, 1);                 // the poller reads the channel's file again
                }
                return e;
            }
            ch.waiters.add(waiter);
            return null;
        }
    }

    private void run() {
        while (running) {
            List<CmChannel> open;
            synchronized (channels) {
                open = channels.values().stream().filter(c -> c != null).toList();
            }
            int[] fds = new int[open.size() + 1];
            fds[0] = wake;
            for (int i = 0; i < open.size(); i++) {
                fds[i + 1] = full(open.get(i)) ? -1 : open.get(i).kernelFd;     // poll(2) skips a negative fd
            }
            short[] ready;
            try {
                ready = ucma.poll(fds, 1000);
            } catch (RuntimeException e) {
                LOG.debug("freeflow rdma_cm poll: {}", e.getMessage());
                continue;
            }
            if (ready[0] != 0) {
                ucma.count(wake, -1);
            }
            for (int i = 1; i < ready.length; i++) {
                if (ready[i] != 0) {
                    drain(open.get(i - 1));
                }
            }
        }
    }

    /** Fetches every event the kernel holds for the channel and delivers or queues each. */
    void drain(CmChannel ch) {
        List<Map.Entry<CmEventWaiter, ByteBuffer>> deliveries = new ArrayList<>();
        synchronized (ch) {
            while (!ch.closed && ch.events.size() < MAX_QUEUED_EVENTS) {
                ByteBuffer cmd = Wire.allocate(16);
                cmd.putInt(0, UcmaCommand.GET_EVENT).putShort(4, (short) 8).putShort(6, (short) UcmaCommand.EVENT_SIZE);
                ByteBuffer event = Wire.allocate(UcmaCommand.EVENT_SIZE);
                int errno = ucma.write(ch.kernelFd, cmd, 8, event);
                if (errno != 0) {
                    if (errno != EAGAIN) {
                        LOG.debug("freeflow rdma_cm channel {}: GET_EVENT errno {}", ch.number, errno);
                    }
                    break;
                }
                LOG.debug("freeflow rdma_cm channel {}: event {} status {} on cm_id {}", ch.number(), event.getInt(12),
                        event.getInt(16), event.getInt(8));
                ByteBuffer answer = Wire.allocate(8 + UcmaCommand.EVENT_SIZE);
                answer.put(8, event, 0, UcmaCommand.EVENT_SIZE);
                if (event.getInt(12) == CONNECT_REQUEST) {
                    ch.ids.add(event.getInt(8));
                }
                counts.event(ch.owner, event.getInt(12));
                CmEventWaiter w = claimWaiter(ch);
                if (w != null) {
                    deliveries.add(Map.entry(w, answer));
                } else {
                    ch.events.add(answer);
                    ucma.count(ch.eventFd, 1);
                }
            }
        }
        deliveries.forEach(d -> d.getKey().deliver(d.getValue()));
    }

    private static boolean full(CmChannel ch) {
        synchronized (ch) {
            return ch.events.size() >= MAX_QUEUED_EVENTS;
        }
    }

    private static CmEventWaiter claimWaiter(CmChannel ch) {
        for (CmEventWaiter w; (w = ch.waiters.poll()) != null; ) {
            if (w.claim()) {
                return w;
            }
        }
        return null;
    }

    /**
     * Whether {@code owner} has an event channel (its cm_ids live on them): a client holding one is in a session,
     * whose quiet connections the control server keeps.
     */
    public boolean holds(Object owner) {
        synchronized (channels) {
            return channels.keySet().stream().anyMatch(k -> k.owner() == owner);
        }
    }

    /** owner's event channels, cm_ids, untaken events and counts ({@link CmCounts.Client#NONE} for a stranger). */
    public CmCounts.Client figures(Object owner) {
        List<CmChannel> mine;
        synchronized (channels) {
            mine = channels.values().stream().filter(c -> c != null && c.owner == owner).toList();
        }
        int ids = 0;
        int queued = 0;
        for (CmChannel ch : mine) {                      // not under the map's lock: MIGRATE_ID takes it inside a channel's
            synchronized (ch) {
                ids += ch.ids.size();
                queued += ch.events.size();
            }
        }
        long[] c = counts.of(owner);
        return new CmCounts.Client(mine.size(), ids, queued, c[0], c[1], c[2], c[3]);
    }

    public CmCounts.Totals totals() {
        return counts.totals();
    }

    public int channels() {
        synchronized (channels) {
            return (int) channels.values().stream().filter(c -> c != null).count();
        }
    }

    @Override
    public void close() {
        running = false;
        ucma.count(wake, 1);
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<CmChannel> all;
        synchronized (channels) {
            all = channels.values().stream().filter(c -> c != null).toList();
            channels.clear();
        }
        all.forEach(this::close);
        ucma.close(wake);
    }
}
