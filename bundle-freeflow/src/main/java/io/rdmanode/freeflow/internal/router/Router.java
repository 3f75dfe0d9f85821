// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.agent.RefusalLog;
import io.rdmanode.freeflow.internal.mapping.MrMappingDatagram;
import io.rdmanode.freeflow.internal.mapping.MrMappingService;
import io.rdmanode.freeflow.internal.mapping.ProcMaps;
import io.rdmanode.freeflow.internal.posix.PeerCred;
import io.rdmanode.freeflow.internal.rdmacm.CmCounts;
import io.rdmanode.freeflow.internal.wire.AllocPdResponse;
import io.rdmanode.freeflow.internal.wire.CreateCqRequest;
import io.rdmanode.freeflow.internal.wire.CreateCqResponse;
import io.rdmanode.freeflow.internal.wire.CreateQpRequest;
import io.rdmanode.freeflow.internal.wire.CreateQpResponse;
import io.rdmanode.freeflow.internal.wire.CreateAhRequest;
import io.rdmanode.freeflow.internal.wire.CreateAhResponse;
import io.rdmanode.freeflow.internal.wire.CreateSrqRequest;
import io.rdmanode.freeflow.internal.wire.CreateSrqResponse;
import io.rdmanode.freeflow.internal.wire.DeviceLimits;
import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.ModifySrqRequest;
import io.rdmanode.freeflow.internal.wire.RegMrMappingRequest;
import io.rdmanode.freeflow.internal.wire.RegMrRequest;
import io.rdmanode.freeflow.internal.wire.RegMrResponse;
import io.rdmanode.freeflow.internal.wire.WireException;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's control verbs over its parts: the {@link TenantTable} (client processes and their object tables),
 * the {@link QpnSpace} (QP numbers across tenants), the {@link ShmStore} (MR files and mailboxes), the
 * {@link CompletionChannels} (completion channels and CQ events), the
 * {@link MailboxPoller} (the fast path) and the {@link Transport} that moves the data ({@link SoftwareTransport},
 * or {@link VerbsTransport} on an RDMA device). The router checks every verb against the tenant's tables and
 * quotas; the transport sees only objects that passed. Every mutation happens under this object's monitor; the fast path (one poller thread) takes it too,
 * so the transport sees one consistent state. Verbs that fail throw {@link WireException} with the errno the
 * client gets, after changing nothing.
 */
public final class Router implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Router.class);

    private final ShmStore shm;
    private final RouterStats stats = new RouterStats();
    private final TenantTable tenants = new TenantTable(this::reclaim);
    private final SecureRandom random = new SecureRandom();
    private final QpnSpace qpns = new QpnSpace(2 + random.nextInt(0xfff000));
    private final MailboxPoller poller;
    private final CompletionChannels channels = new CompletionChannels(this);
    private final AsyncEvents asyncEvents = new AsyncEvents(this, stats);
    private final RefusalLog refusals = new RefusalLog(LOG, Duration.ofMinutes(1));
    final Transport transport;
    /** rdma_cm, with the verbs transport only (a kernel rdma_cm to replay on); null with the software one. */
    private final io.rdmanode.freeflow.internal.rdmacm.RdmaCm cm;
    private volatile Limits limits;
    /** The inter-host MR mapping, when {@code freeflow.hosts} lists any host. */
    private volatile Optional<MrMappingService> mapping = Optional.empty();

    public Router(RouterSettings settings) {
        this(settings, settings.backend().verbs()
                ? io.rdmanode.freeflow.internal.verbs.LibibverbsDevice.open(settings.backend().library(),
                        settings.backend().device())
                : null);
    }

    /** A router on {@code device} with the verbs transport, or with the software transport when it is null. */
    Router(RouterSettings settings, io.rdmanode.freeflow.internal.verbs.VerbsDevice device) {
        this(settings, device, io.rdmanode.freeflow.internal.rdmacm.RdmaCm::open);
    }

    /** ... with rdma_cm made by {@code cm} from the channel cap, with the verbs transport (tests: a fake kernel's). */
    Router(RouterSettings settings, io.rdmanode.freeflow.internal.verbs.VerbsDevice device,
           java.util.function.Function<java.util.function.IntSupplier, io.rdmanode.freeflow.internal.rdmacm.RdmaCm> cm) {
        this.shm = new ShmStore(settings.shmDir(), settings.shmPrefix());
        this.limits = settings.limits();
        if (device == null) {
            this.transport = new SoftwareTransport(qpns, this::limits, channels::completionAdded, stats, this::asyncEvent);
        } else {
            try {
                this.transport = new VerbsTransport(device, settings.backend().gidIndex(), qpns, this::limits,
                        channels::completionAdded, stats, this::mapping, new DeviceEvents.Sink() {
                            @Override
                            public void event(int type, Object owner, int port) {
                                asyncEvent(type, owner, port);
                            }

                            @Override
                            public void completion(Object cq) {
                                cqSignalled(cq);
                            }
                        });
            } catch (RuntimeException e) {
                device.close();
                throw e;
            }
            LOG.info("freeflow router on device {} (verbs transport, GID index {})", device.name(),
                    settings.backend().gidIndex());
        }
        this.cm = device == null ? null : cm.apply(() -> limits().maxChannels());
        this.poller = new MailboxPoller(new FastPath(this), settings.poller(), this::tick);
        poller.start();
    }

    /** rdma_cm (verbs transport), or null. */
    io.rdmanode.freeflow.internal.rdmacm.RdmaCm cm() {
        return cm;
    }

    /** Replaces rdma_cm's overlay-to-host address map (in place; nothing without the verbs transport). */
    public void addressMap(io.rdmanode.freeflow.internal.rdmacm.AddressMap m) {
        if (cm != null) {
            cm.addressMap(m);
        }
    }

    /** The rdma_cm route's source GID index for a MODIFY_QP of t's ({@link io.rdmanode.freeflow.internal.rdmacm.RdmaCm#routeGidIndex}), or -1. */
    int routeGidIndex(Tenant t, io.rdmanode.freeflow.internal.wire.ModifyQpRequest r) {
        return cm == null || (r.attrMask() & QpTransitions.AV) == 0 ? -1
                : cm.routeGidIndex(t, r.destQpNum(), r.dgid(), r.sgidIndex());
    }

    /** Whether one of the tenant's QPs has QP number {@code qpn} (what a CONNECT or ACCEPT may name). */
    synchronized boolean ownsQpn(Tenant t, int qpn) {
        return t.qps.values().stream().anyMatch(q -> q.qpn == qpn);
    }

    public RouterStats stats() {
        return stats;
    }

    CompletionChannels channels() {
        return channels;
    }

    AsyncEvents asyncEvents() {
        return asyncEvents;
    }

    /** The device signalled a CQ on the router's completion channel (verbs transport, its event thread). */
    private void cqSignalled(Object cq) {
        synchronized (this) {
            if (transport instanceof VerbsTransport v && cq instanceof CompletionQueue q && !q.tenant.gone) {
                v.signalled(q);
            }
        }
    }

    /** An async event from the transport (its device's event thread, or the software SRQ limit); see AsyncEvents. */
    void asyncEvent(int type, Object owner, int port) {
        synchronized (this) {
            asyncEvents.deliver(type, owner, port, tenants.all());
        }
    }

    public MailboxPoller poller() {
        return poller;
    }

    public Limits limits() {
        return limits;
    }

    public void limits(Limits l) {
        this.limits = l;
    }

    public long shmFiles() {
        return shm.files.get();
    }

    public long shmBytes() {
        return shm.bytes.get();
    }

    /**
     * QUERY_DEV's device: the per-tenant limits, each capped by the device's own (the lower of the two) with the verbs
     * transport; the ids stay the ConnectX-3 ones the genuine client's libmlx4 matches.
     */
    DeviceLimits device() {
        Limits l = limits;
        DeviceLimits own = new DeviceLimits("freeflow-java-1", 0x0002c90300000001L, l.maxMrBytes(), l.maxQps(),
                l.maxQpWr(), l.maxSge(), l.maxCqs(), l.maxCqe(), l.maxMrs(), l.maxPds(), l.maxQps(), l.maxQpWr(),
                l.maxSge(), 16);
        return transport.deviceAttr().map(d -> new DeviceLimits(own.fwVer(), own.nodeGuid(),
                Math.min(own.maxMrSize(), d.maxMrSize()), Math.min(own.maxQp(), d.maxQp()),
                Math.min(own.maxQpWr(), d.maxQpWr()), Math.min(own.maxSge(), d.maxSge()), Math.min(own.maxCq(), d.maxCq()),
                Math.min(own.maxCqe(), d.maxCqe()), Math.min(own.maxMr(), d.maxMr()), Math.min(own.maxPd(), d.maxPd()),
                Math.min(own.maxSrq(), d.maxSrq()), Math.min(own.maxSrqWr(), d.maxSrqWr()),
                Math.min(own.maxSrqSge(), d.maxSrqSge()), Math.min(own.maxQpRdAtom(), d.maxQpRdAtom()))).orElse(own);
    }

    // ---- tenants

    /** The tenant of a connection's peer; a new process (or a pid reused by another one) gets fresh tables. */
    synchronized Tenant tenant(PeerCred cred, int label) {
        return tenants.of(cred, label);
    }

    synchronized Tenant tenantByPid(int pid) {
        return tenants.byPid(pid);
    }

    /**
     * True when who's process is a tenant here and still runs (a pid reused by another process, or another uid,
     * is not): a draining predecessor claims its tenants' connections with this.
     */
    synchronized boolean servesTenant(PeerCred who) {
        Tenant t = tenants.byPid(who.pid());
        return t != null && !t.gone && t.cred.uid() == who.uid() && t.liveness.alive();
    }

    /**
     * True when who's process is a live tenant here ({@link #servesTenant}) that holds an object: what a drain
     * claims, and what keeps its quiet connections from the idle timeout.
     */
    synchronized boolean holdsObjects(PeerCred who) {
        return servesTenant(who) && holdsObjects(tenants.byPid(who.pid()));
    }

    /**
     * Tenants that hold an object here (a PD, CQ, QP, SRQ, AH, MR, completion channel or rdma_cm event channel, which
     * holds its cm_ids): what a drain waits for.
     */
    public synchronized int tenantsHoldingObjects() {
        int n = 0;
        for (Tenant t : tenants.all()) {
            if (holdsObjects(t)) {
                n++;
            }
        }
        return n;
    }

    private boolean holdsObjects(Tenant t) {
        return !t.pds.isEmpty() || !t.cqs.isEmpty() || !t.qps.isEmpty() || !t.srqs.isEmpty() || !t.ahs.isEmpty()
                || !t.mrs.isEmpty() || !t.channels.isEmpty() || cm != null && cm.holds(t);
    }

    public synchronized List<TenantFigures> tenants() {
        return tenants.figures(t -> cm == null ? CmCounts.Client.NONE : cm.figures(t));
    }

    /** rdma_cm's counts since the router started; zeros with the software transport. */
    public CmCounts.Totals cmTotals() {
        return cm == null ? CmCounts.Totals.NONE : cm.totals();
    }

    /** rdma_cm event channels open now, every tenant's. */
    public int cmChannels() {
        return cm == null ? 0 : cm.channels();
    }

    /** Whether CM_* calls are served (the verbs transport: a kernel rdma_cm to replay them on). */
    public boolean servesRdmaCm() {
        return cm != null;
    }

    /** Reclaims every tenant whose process has exited. Returns how many. */
    public synchronized int reap() {
        List<Tenant> dead = tenants.exited();
        for (Tenant t : dead) {
            reclaim(t, "process exited");
        }
        return dead.size();
    }

    /**
     * A thread caught a fault in tenant memory ({@link ShmFaults}): every tenant holding a file that was truncated
     * under the router's mapping is reclaimed, as if its process had exited; the others are not touched. Logged with
     * the fault. Returns how many tenants were reclaimed.
     */
    public synchronized int faultInTenantMemory(Throwable fault, String where) {
        stats.shmFaults.increment();
        java.util.Set<Integer> pids = shm.truncatedOwners();
        LOG.warn("freeflow {}: a client's shared memory was cut short under the router's mapping ({}); reclaiming"
                + " the client(s) that truncated a file of theirs: pids {}", where, fault.getMessage(), pids);
        int n = 0;
        for (int pid : pids) {
            Tenant t = tenants.byPid(pid);
            if (t != null) {
                reclaim(t, "truncated its shared memory");
                n++;
            }
        }
        return n;
    }

    private void reclaim(Tenant t, String why) {
        int objects = t.qps.size() + t.srqs.size() + t.ahs.size() + t.cqs.size() + t.mrs.size() + t.channels.size() + t.pds.size();
        for (Integer h : new ArrayList<>(t.qps.keySet())) {
            destroyQp(t, h);
        }
        for (Integer h : new ArrayList<>(t.srqs.keySet())) {
            destroySrq(t, h);
        }
        for (Integer h : new ArrayList<>(t.ahs.keySet())) {
            destroyAh(t, h);
        }
        for (Integer h : new ArrayList<>(t.cqs.keySet())) {
            destroyCq(t, h);
        }
        for (Integer h : new ArrayList<>(t.mrs.keySet())) {
            deregMr(t, h);
        }
        for (Integer fd : new ArrayList<>(t.channels.keySet())) {
            channels.destroy(t, fd);
        }
        t.pds.clear();
        asyncEvents.close(t);
        if (cm != null) {
            objects += cm.reclaim(t);
        }
        t.gone = true;
        t.liveness.close();
        tenants.remove(t);
        stats.tenantsReclaimed.increment();
        stats.objectsReclaimed.add(objects);
        LOG.info("freeflow client gone pid={} uid={} ({}): reclaimed {} objects", t.cred.pid(), t.cred.uid(), why, objects);
    }

    /**
     * A request still in flight when its process was reclaimed must not create anything: nobody would ever
     * reclaim it again.
     */
    static void live(Tenant t) {
        if (t.gone) {
            throw new WireException(Errno.EINVAL, t.id() + " was reclaimed");
        }
    }

    /**
     * Counts a refusal by a per-tenant cap (in total and for the tenant) and logs it once a minute per tenant and
     * resource; the exception carries the resource's errno. Lock held.
     */
    WireException refuse(Tenant t, Resource r, String what, long limit) {
        stats.limitRefusals.increment();
        t.refusals[r.ordinal()]++;
        refusals.warn("freeflow-" + r.label() + ":" + t.cred.pid(), "freeflow client {} refused: more than {} {} (errno {})",
                t.id(), limit, what, r.errno());
        return new WireException(r.errno(), "tenant limit of " + limit + " " + what + " reached");
    }

    /** A connection refused by the per-tenant connection cap of the control server, counted for its tenant. */
    synchronized void refuseConnection(PeerCred cred, int limit) {
        refuse(tenants.of(cred), Resource.CONNECTIONS, "connections", limit);
    }

    /** Refuses what would take the tenant's shared memory (MR files and mailboxes) past its cap. */
    private void shm(Tenant t, long more) {
        long cap = limits.maxShmBytes();
        if (t.shmBytes() + more > cap) {
            throw refuse(t, Resource.SHM, "bytes of shared memory", cap);
        }
    }

    // ---- PDs

    synchronized AllocPdResponse allocPd(Tenant t) {
        live(t);
        if (t.pds.size() >= limits.maxPds()) {
            throw refuse(t, Resource.PDS, "PDs", limits.maxPds());
        }
        int h = t.pdHandles.take();
        if (h == 0) {
            throw new WireException(Errno.ENOMEM, "no PD handle left");
        }
        t.pds.add(h);
        return new AllocPdResponse(h);
    }

    synchronized void deallocPd(Tenant t, int h) {
        pd(t, h);
        boolean used = t.qps.values().stream().anyMatch(q -> q.pd == h) || t.mrs.values().stream().anyMatch(m -> m.pd == h)
                || t.srqs.values().stream().anyMatch(q -> q.pd == h) || t.ahs.values().stream().anyMatch(a -> a.pd == h);
        if (used) {
            throw new WireException(Errno.EBUSY, "PD " + h + " still has QPs, SRQs, AHs or MRs");
        }
        t.pds.remove(h);
        t.pdHandles.free(h);
    }

    private static void pd(Tenant t, int h) {
        if (!t.pds.contains(h)) {
            throw new WireException(Errno.EINVAL, "no PD " + h + " for " + t.id());
        }
    }

    // ---- CQs and channels

    synchronized CreateCqResponse createCq(Tenant t, CreateCqRequest r) {
        live(t);
        Limits l = limits;
        if (t.cqs.size() >= l.maxCqs()) {
            throw refuse(t, Resource.CQS, "CQs", l.maxCqs());
        }
        if (t.mailboxes() >= l.maxMailboxes()) {
            throw refuse(t, Resource.SHM, "mailboxes", l.maxMailboxes());
        }
        shm(t, Mailbox.SIZE);
        if (r.cqe() > l.maxCqe()) {
            throw new WireException(Errno.EINVAL, "CQ depth " + r.cqe() + " > " + l.maxCqe());
        }
        CompChannel ch = null;
        if (r.channelFd() >= 0) {
            ch = t.channels.get(r.channelFd());
            if (ch == null) {
                throw new WireException(Errno.EINVAL, "no completion channel " + r.channelFd() + " for " + t.id());
            }
        }
        Mailbox mb = takeMailbox(Mailbox.Kind.CQ, t, t.cqHandles, "CQ");
        int h = mb.handle;
        CompletionQueue cq = new CompletionQueue(t, h, r.cqe(), mb, ch);
        mb.cq = cq;
        t.cqs.put(h, cq);
        poller.add(mb);
        return new CreateCqResponse(r.cqe(), h, mb.file.name());
    }

    synchronized void destroyCq(Tenant t, int h) {
        CompletionQueue cq = cq(t, h);
        if (cq.users > 0) {
            throw new WireException(Errno.EBUSY, "CQ " + h + " still used by " + cq.users + " QP(s)");
        }
        t.cqs.remove(h);
        t.cqHandles.free(h);
        cq.mailbox.cq = null;
        retire(cq.mailbox);
    }

    static CompletionQueue cq(Tenant t, int h) {
        CompletionQueue cq = t.cqs.get(h);
        if (cq == null) {
            throw new WireException(Errno.EINVAL, "no CQ " + h + " for " + t.id());
        }
        return cq;
    }

    private void retire(Mailbox mb) {
        shm.release(mb.file);
        poller.remove(mb);
    }

    // ---- QPs

    synchronized CreateQpResponse createQp(Tenant t, CreateQpRequest r) {
        live(t);
        Limits l = limits;
        if (!transport.supports(r.qpType())) {
            throw new WireException(Errno.EOPNOTSUPP, "QP type " + r.qpType() + " is not supported by the "
                    + (transport instanceof VerbsTransport ? "verbs transport (RC, UC and UD)" : "software transport (RC and UC)"));
        }
        pd(t, r.pdHandle());
        SharedReceiveQueue srq = r.srq() == 0 ? null : srq(t, r.srq());
        if (srq != null && srq.pd != r.pdHandle()) {
            throw new WireException(Errno.EINVAL, "SRQ " + r.srq() + " belongs to PD " + srq.pd + ", the QP to PD "
                    + r.pdHandle());
        }
        CompletionQueue scq = cq(t, r.sendCq());
        CompletionQueue rcq = cq(t, r.recvCq());
        if (t.qps.size() >= l.maxQps()) {
            throw refuse(t, Resource.QPS, "QPs", l.maxQps());
        }
        if (t.mailboxes() >= l.maxMailboxes()) {
            throw refuse(t, Resource.SHM, "mailboxes", l.maxMailboxes());
        }
        shm(t, Mailbox.SIZE);
        if (r.maxSendWr() < 1 || r.maxSendWr() > l.maxQpWr() || r.maxRecvWr() < 0 || r.maxRecvWr() > l.maxQpWr()
                || r.maxSendSge() < 0 || r.maxSendSge() > l.maxSge() || r.maxRecvSge() < 0 || r.maxRecvSge() > l.maxSge()) {
            throw new WireException(Errno.EINVAL, "QP capacities out of range (wr 1.." + l.maxQpWr() + ", sge 0.."
                    + l.maxSge() + ")");
        }
        Mailbox mb = takeMailbox(Mailbox.Kind.QP, t, t.qpHandles, "QP");
        int h = mb.handle;
        QueuePair qp = new QueuePair(t, h, qpns.allocate(), r.pdHandle(), r.sqSigAll(), scq, rcq, mb, r.maxSendWr(),
                r.maxRecvWr(), Math.max(1, r.maxSendSge()), Math.max(1, r.maxRecvSge()));
        qp.type = r.qpType();
        qp.maxInline = Math.max(0, r.maxInline());
        qp.srq = srq;
        try {
            transport.created(qp);                  // a device transport may give the QP its own QPN
        } catch (RuntimeException e) {
            shm.release(mb.file);
            mb.file.unmap();
            t.qpHandles.free(h);
            throw e;
        }
        mb.qp = qp;
        scq.users++;
        rcq.users++;
        if (srq != null) {
            srq.users++;
        }
        t.qps.put(h, qp);
        qpns.bind(qp);
        poller.add(mb);
        return new CreateQpResponse(qp.qpn, h, qp.maxSendWr, qp.maxRecvWr, qp.maxSendSge, qp.maxRecvSge, mb.file.name());
    }

    /** A free handle of {@code handles} and its mailbox; the handle goes back when the shared memory cannot be made. */
    private Mailbox takeMailbox(Mailbox.Kind kind, Tenant t, Handles handles, String what) throws WireException {
        int h = handles.take();
        if (h == 0) {
            throw new WireException(Errno.ENOMEM, "no " + what + " handle left");
        }
        try {
            return new Mailbox(kind, t, h, shm.create(Mailbox.SIZE, t.cred));
        } catch (IOException e) {
            handles.free(h);
            refusals.warn("shm", "freeflow cannot make shared memory for {}: {}", t.id(), e.getMessage());
            throw new WireException(Errno.ENOMEM, e.getMessage());
        }
    }

    static QueuePair qp(Tenant t, int h) {
        QueuePair qp = t.qps.get(h);
        if (qp == null) {
            throw new WireException(Errno.EINVAL, "no QP " + h + " for " + t.id());
        }
        return qp;
    }

    synchronized void destroyQp(Tenant t, int h) {
        QueuePair qp = qp(t, h);
        t.qps.remove(h);
        t.qpHandles.free(h);
        qpns.release(qp);
        qp.sendCq.users--;
        qp.recvCq.users--;
        if (qp.srq != null) {
            qp.srq.users--;
        }
        qp.state = QueuePair.ERR;
        qp.destroyed = true;
        qp.sq.clear();
        qp.rq.clear();
        transport.destroyed(qp);
        qp.mailbox.qp = null;
        retire(qp.mailbox);
    }

    // ---- SRQs

    synchronized CreateSrqResponse createSrq(Tenant t, CreateSrqRequest r) {
        live(t);
        Limits l = limits;
        pd(t, r.pdHandle());
        if (t.srqs.size() >= l.maxQps()) {
            throw refuse(t, Resource.SRQS, "SRQs", l.maxQps());
        }
        if (t.mailboxes() >= l.maxMailboxes()) {
            throw refuse(t, Resource.SHM, "mailboxes", l.maxMailboxes());
        }
        shm(t, Mailbox.SIZE);
        if (r.maxWr() > l.maxQpWr() || r.maxSge() > l.maxSge()) {
            throw new WireException(Errno.EINVAL, "SRQ capacities out of range (wr 1.." + l.maxQpWr() + ", sge 1.."
                    + l.maxSge() + ")");
        }
        Mailbox mb = takeMailbox(Mailbox.Kind.SRQ, t, t.srqHandles, "SRQ");
        SharedReceiveQueue srq = new SharedReceiveQueue(t, mb.handle, r.pdHandle(), r.maxWr(), r.maxSge(), mb);
        try {
            transport.srqCreated(srq);
        } catch (RuntimeException e) {
            shm.release(mb.file);
            mb.file.unmap();
            t.srqHandles.free(mb.handle);
            throw e;
        }
        t.srqs.put(mb.handle, srq);
        poller.add(mb);
        return new CreateSrqResponse(mb.handle, mb.file.name());
    }

    /**
     * IBV_SRQ_MAX_WR resizes (never below what is posted now); IBV_SRQ_LIMIT arms the limit event (SRQ_LIMIT_REACHED,
     * an async event for the SRQ's tenant), which fires once when fewer receives than the limit are posted; a limit
     * of 0 disarms it, one beyond max_wr is EINVAL (as ibv_modify_srq).
     */
    synchronized void modifySrq(Tenant t, ModifySrqRequest r) {
        SharedReceiveQueue srq = srq(t, r.handle());
        if ((r.mask() & ModifySrqRequest.LIMIT) != 0) {
            int max = (r.mask() & ModifySrqRequest.MAX_WR) != 0 ? r.maxWr() : srq.maxWr;
            if (r.srqLimit() < 0 || r.srqLimit() > max) {
                throw new WireException(Errno.EINVAL, "SRQ " + r.handle() + " limit " + r.srqLimit() + " outside 0.." + max);
            }
        }
        if ((r.mask() & ModifySrqRequest.MAX_WR) != 0) {
            if (r.maxWr() < Math.max(1, srq.rq.size()) || r.maxWr() > limits.maxQpWr()) {
                throw new WireException(Errno.EINVAL, "SRQ " + r.handle() + " max_wr " + r.maxWr() + " outside "
                        + Math.max(1, srq.rq.size()) + ".." + limits.maxQpWr());
            }
            transport.srqResized(srq, r.maxWr());
            srq.maxWr = r.maxWr();
        }
        if ((r.mask() & ModifySrqRequest.LIMIT) != 0) {
            transport.srqArmed(srq, r.srqLimit());
            srq.limit = r.srqLimit();
        }
    }

    synchronized void destroySrq(Tenant t, int h) {
        SharedReceiveQueue srq = srq(t, h);
        if (srq.users > 0) {
            throw new WireException(Errno.EBUSY, "SRQ " + h + " still used by " + srq.users + " QP(s)");
        }
        t.srqs.remove(h);
        t.srqHandles.free(h);
        srq.rq.clear();
        transport.srqDestroyed(srq);
        retire(srq.mailbox);
    }

    // ---- address handles (UD)

    synchronized CreateAhResponse createAh(Tenant t, CreateAhRequest r) {
        live(t);
        pd(t, r.pdHandle());
        if (t.ahs.size() >= limits.maxQps()) {
            throw refuse(t, Resource.QPS, "AHs", limits.maxQps());
        }
        int h = t.ahHandles.take();
        if (h == 0) {
            throw new WireException(Errno.ENOMEM, "no AH handle left");
        }
        AddressHandle ah = new AddressHandle(t, h, r.pdHandle(), r.dgid(), r.dlid(), r.sl(), r.global());
        try {
            transport.ahCreated(ah);
        } catch (RuntimeException e) {
            t.ahHandles.free(h);
            throw e;
        }
        t.ahs.put(h, ah);
        return new CreateAhResponse(h, 0);
    }

    synchronized void destroyAh(Tenant t, int h) {
        AddressHandle ah = t.ahs.remove(h);
        if (ah == null) {
            throw new WireException(Errno.EINVAL, "no AH " + h + " for " + t.id());
        }
        t.ahHandles.free(h);
        transport.ahDestroyed(ah);
    }

    static SharedReceiveQueue srq(Tenant t, int h) {
        SharedReceiveQueue srq = t.srqs.get(h);
        if (srq == null) {
            throw new WireException(Errno.EINVAL, "no SRQ " + h + " for " + t.id());
        }
        return srq;
    }

    // ---- MRs

    synchronized RegMrResponse regMr(Tenant t, RegMrRequest r) {
        live(t);
        Limits l = limits;
        pd(t, r.pdHandle());
        // A caller-named MR (ibv_reg_mr_ff: rping names its buffers "cb.send_mr", ...) gets a file of its own like
        // any other: the client maps whatever name the answer carries. The genuine router would map one file per
        // name, shared by every registration (and every tenant) that says that name: not a thing to copy.
        if (!r.shmName().isEmpty()) {
            LOG.debug("freeflow {} REG_MR named '{}': a router-named file instead", t.id(),
                    io.rdmanode.agent.LogText.escape(r.shmName()));
        }
        if ((r.accessFlags() & (MemoryRegion.REMOTE_WRITE)) != 0 && (r.accessFlags() & MemoryRegion.LOCAL_WRITE) == 0) {
            throw new WireException(Errno.EINVAL, "REMOTE_WRITE without LOCAL_WRITE");
        }
        if (t.mrs.size() >= l.maxMrs()) {
            throw refuse(t, Resource.MRS, "MRs", l.maxMrs());
        }
        if (t.mrBytes + r.memSize() > l.maxMrBytes()) {
            throw refuse(t, Resource.SHM, "registered bytes", l.maxMrBytes());
        }
        shm(t, r.memSize());
        int h = t.mrHandles.take();
        if (h == 0) {
            throw new WireException(Errno.ENOMEM, "no MR handle left");
        }
        ShmFile f;
        try {
            f = shm.create(r.memSize(), t.cred);
        } catch (IOException e) {
            t.mrHandles.free(h);
            refusals.warn("shm", "freeflow cannot make shared memory for {}: {}", t.id(), e.getMessage());
            throw new WireException(Errno.ENOMEM, e.getMessage());
        }
        Transport.Keys keys;
        try {
            keys = transport.register(t, r.accessFlags(), f);
        } catch (RuntimeException e) {
            shm.release(f);
            f.unmap();
            t.mrHandles.free(h);
            throw e;
        }
        int key;
        if (keys != null) {
            key = keys.lkey();
        } else {
            do {
                key = random.nextInt();
            } while (key == 0 || t.mrsByKey.containsKey(key));
            keys = new Transport.Keys(key, key);
        }
        MemoryRegion mr = new MemoryRegion(t, h, key, r.pdHandle(), r.accessFlags(), f);
        t.mrs.put(h, mr);
        t.mrsByKey.put(key, mr);
        t.mrBytes += r.memSize();
        return new RegMrResponse(h, keys.lkey(), keys.rkey(), f.name());
    }

    /**
     * Records the application's address of an MR; with the inter-host mapping on, returns what the other routers
     * are told: the key, that address and this router's own address of the MR's pages (a remote NIC writes there).
     * Announcing waits for the network, so the caller does it outside the router's lock ({@link #announce}).
     */
    synchronized Optional<MrMappingDatagram> regMrMapping(
            Tenant t, RegMrMappingRequest r) {
        MemoryRegion mr = t.mrsByKey.get(r.key());
        if (mr == null) {
            throw new WireException(Errno.EINVAL, "no MR with key " + Integer.toUnsignedString(r.key()) + " for " + t.id());
        }
        mr.appBase = r.mrPtr();
        if (mapping.isEmpty()) {
            return Optional.empty();
        }
        java.util.OptionalLong registered = transport.registeredAt(mr);
        long own = registered.isPresent() ? registered.getAsLong() : ProcMaps.startOf(mr.file.path()).orElse(0L);
        return Optional.of(new MrMappingDatagram(r.key(), r.mrPtr(), own));
    }

    /** Sends an MR mapping to the configured hosts' routers (as the genuine router, the verb answers 0 anyway). */
    void announce(MrMappingDatagram m) {
        Optional<MrMappingService> service = mapping;
        if (service.isEmpty()) {
            return;
        }
        try {
            service.get().announce(m);
        } catch (java.io.IOException e) {
            refusals.warn("announce", "freeflow MR mapping of key {} not sent: {}", Integer.toUnsignedString(m.key()),
                    e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts or stops announcing and accepting MR mappings (the component owns the service). */
    public void mapping(Optional<MrMappingService> service) {
        this.mapping = service;
    }

    public Optional<MrMappingService> mapping() {
        return mapping;
    }

    synchronized void deregMr(Tenant t, int h) {
        MemoryRegion mr = t.mrs.get(h);
        if (mr == null) {
            throw new WireException(Errno.EINVAL, "no MR " + h + " for " + t.id());
        }
        t.mrs.remove(h);
        t.mrsByKey.remove(mr.key);
        mr.deregistered = true;
        t.mrHandles.free(h);
        t.mrBytes -= mr.size;
        transport.deregister(mr);
        shm.release(mr.file);
        // Data moves happen under this lock, so nothing can be copying from or into the mapping now.
        mr.file.unmap();
    }

    // ---- time

    /** Called by the poller after every scan: takes the lock only when an RNR retry is actually waiting. */
    private void tick(long now) {
        if (transport.timersPending()) {
            synchronized (this) {
                transport.tick(now);
            }
        }
    }

    boolean timersPending() {
        return transport.timersPending();
    }

    @Override
    public void close() {
        poller.close();
        synchronized (this) {
            for (Tenant t : tenants.all()) {
                reclaim(t, "router stopped");
            }
        }
        poller.drainRetired();
        if (cm != null) {
            cm.close();
        }
        synchronized (this) {
            transport.close();
        }
    }
}
