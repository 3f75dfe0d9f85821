// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal;

import io.rdmanode.agent.Handover;
import io.rdmanode.agent.StartupGate;
import io.rdmanode.freeflow.internal.mapping.MappingSettings;
import io.rdmanode.freeflow.internal.mapping.MrMappingService;
import io.rdmanode.freeflow.internal.rdmacm.AddressMap;
import io.rdmanode.freeflow.internal.router.ControlServer;
import io.rdmanode.freeflow.internal.router.ControlSettings;
import io.rdmanode.freeflow.internal.router.Limits;
import io.rdmanode.freeflow.internal.router.PollerSettings;
import io.rdmanode.freeflow.internal.router.Router;
import io.rdmanode.freeflow.internal.router.RouterSettings;
import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import java.io.IOException;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Freeflow router as a component: runs only when the configuration has a {@code freeflow} section
 * (configuration policy REQUIRE), because it opens a socket every container on the host may connect to and creates
 * shared memory on their behalf; an operator turns that on deliberately. A configuration splits into its
 * {@link Identity} (the socket and the shm directory: a change means a new router, which ends every client's
 * resources) and its {@link Tuning} (limits, poller, control server bounds, reap interval), which @Modified applies to the
 * running router in place: the socket stays the same file and connected clients keep their objects.
 */
@Component(service = {StatusSection.class, HealthCheck.class, FreeflowFigures.class}, configurationPid = FreeflowComponent.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = FreeflowComponent.Config.class)
public final class FreeflowComponent implements StatusSection, HealthCheck, FreeflowFigures {
    static final String PID = "io.rdmanode.freeflow";
    private static final Logger LOG = LoggerFactory.getLogger(FreeflowComponent.class);

    @ObjectClassDefinition(name = "Freeflow router",
            description = "Wire-compatible Freeflow router: virtual RDMA for containers, software RC/UC backend"
                    + " or RC/UC/UD QPs, SRQs and AHs on an RDMA device (transport verbs)")
    public @interface Config {
        @AttributeDefinition(description = "directory of the control socket; the genuine Freeflow client has"
                + " /freeflow hard-coded, so containers must see it there")
        String socketDir() default "/freeflow";

        @AttributeDefinition(description = "router name = socket file name (the clients' FFR_NAME)")
        String routerName() default "ffrouter";

        @AttributeDefinition(description = "where MR files and mailboxes are created; clients shm_open them, so"
                + " it must be their /dev/shm (shared IPC namespace)")
        String shmDir() default "/dev/shm";

        @AttributeDefinition(description = "workers executing complete control requests; no worker waits for a"
                + " client's bytes or for a CQ event (one control thread polls every connection)", min = "2",
                max = "1024")
        int controlThreads() default 8;

        @AttributeDefinition(description = "control connections open at once, all clients; past it the router"
                + " stops accepting and new clients wait in the listen backlog", min = "16", max = "65536")
        int maxConnections() default 4096;

        @AttributeDefinition(description = "control connections open at once per client process (each"
                + " event-mode completion channel keeps one); past it a request is answered EAGAIN", min = "2",
                max = "65536")
        int maxConnectionsPerTenant() default 128;

        @AttributeDefinition(description = "milliseconds a connection may stay open without sending a request"
                + " before it is closed, when its client process holds nothing here (no PD, CQ, QP, SRQ, AH, MR,"
                + " completion or rdma_cm channel); never applied to an event channel's connection (GET_CQ_EVENT,"
                + " CM_GET_EVENT)", min = "100")
        long idleTimeout() default 60_000;

        @AttributeDefinition(description = "milliseconds an answer may wait for a client that does not read it",
                min = "100", max = "600000")
        long writeTimeout() default 5_000;

        @AttributeDefinition(description = "completion channels per client process; past it"
                + " ibv_create_comp_channel is refused (EMFILE)", min = "0", max = "10239")
        int maxChannelsPerTenant() default 64;

        @AttributeDefinition(description = "shared memory per client process, bytes: its MR files and its 2 MiB"
                + " QP/CQ/SRQ mailboxes together; past it creation is refused (ENOMEM)", min = "0")
        long maxShmBytesPerTenant() default 4L << 30;

        @AttributeDefinition(description = "registered memory per client process, bytes", min = "0")
        long maxMrBytesPerTenant() default 1L << 30;

        @AttributeDefinition(description = "MRs per client process", min = "0", max = "10239")
        int maxMrsPerTenant() default 4096;

        @AttributeDefinition(description = "QPs per client process", min = "0", max = "10239")
        int maxQpsPerTenant() default 1024;

        @AttributeDefinition(description = "CQs per client process", min = "0", max = "10239")
        int maxCqsPerTenant() default 1024;

        @AttributeDefinition(description = "PDs per client process", min = "0", max = "10239")
        int maxPdsPerTenant() default 256;

        @AttributeDefinition(description = "shm mailboxes (one per QP and CQ, 2 MiB each) per client process",
                min = "0", max = "20478")
        int maxMailboxesPerTenant() default 2048;

        @AttributeDefinition(description = "work requests per queue", min = "1", max = "1048576")
        int maxQpWr() default 16384;

        @AttributeDefinition(description = "CQ depth", min = "1", max = "4194304")
        int maxCqe() default 65536;

        @AttributeDefinition(description = "most work completions one ibv_poll_cq returns, 0 = as many as asked;"
                + " 1 (the default) lets applications built on MLNX exp verbs (ibv_exp_poll_cq) run on the genuine"
                + " Freeflow client, which fills their ibv_exp_wc arrays with ibv_wc-sized entries; 0 gives clients"
                + " that poll with plain ibv_poll_cq whole batches per round trip", min = "0", max = "65536")
        int maxCompletionsPerPoll() default 1;

        @AttributeDefinition(description = "empty scans the poller spins before backing off", min = "0")
        int pollerSpins() default 2000;

        @AttributeDefinition(description = "further empty scans with Thread.onSpinWait", min = "0")
        int pollerSpinWaits() default 20000;

        @AttributeDefinition(description = "further empty scans with Thread.yield before parking", min = "0")
        int pollerYields() default 200;

        @AttributeDefinition(description = "longest park between scans when idle, microseconds (the added latency"
                + " of the first request after a pause)", min = "1", max = "100000")
        long pollerParkMaxMicros() default 100;

        @AttributeDefinition(description = "milliseconds between checks for clients that exited", min = "10",
                max = "60000")
        long reapInterval() default 500;

        @AttributeDefinition(description = "after a successor took the socket over (handover), how long clients"
                + " that started on this instance keep it at stop before they are cut, milliseconds: until then the"
                + " successor passes their new connections back here; keep agent.runtime.shutdownTimeout above it",
                min = "0", max = "600000")
        long drainTimeout() default 5_000;

        @AttributeDefinition(description = "hosts (IP addresses) whose Freeflow routers this one exchanges MR"
                + " mappings with over UDP, as the genuine routers' HOST_LIST; empty: no inter-host mapping."
                + " Announcements from other senders are ignored")
        String[] hosts() default {};

        @AttributeDefinition(description = "UDP port of the MR mapping on every host (the genuine routers' 11232)",
                min = "1", max = "65535")
        int mappingPort() default MappingSettings.GENUINE_PORT;

        @AttributeDefinition(description = "local address the MR mapping binds and sends from")
        String mappingBind() default "0.0.0.0";

        @AttributeDefinition(description = "how long an MR mapping waits for each host's acknowledgement before it"
                + " is sent again, milliseconds", min = "1", max = "60000")
        long mappingAckTimeout() default 250;

        @AttributeDefinition(description = "how many times an MR mapping is sent to a host that does not"
                + " acknowledge it", min = "1", max = "100")
        int mappingAttempts() default 4;

        @AttributeDefinition(description = "what moves the data: software (copies between the MR files of this"
                + " host's clients) or verbs (RC, UC and UD QPs, SRQs, AHs, CQs, PDs and MRs on the RDMA device"
                + " named by device; the NIC moves the data, also to other hosts)", options = {
                    @Option(label = "software", value = "software"), @Option(label = "verbs", value = "verbs")})
        String transport() default RouterSettings.Backend.SOFTWARE_NAME;

        @AttributeDefinition(description = "with transport verbs: the RDMA device's name (as in"
                + " /sys/class/infiniband, e.g. mlx5_0 or rxe0)")
        String device() default "";

        @AttributeDefinition(description = "with transport verbs: the index of the GID of the device's port 1 that"
                + " the router's QPs address peers from (RoCE: 0 is the IPv6 link-local one)", min = "0", max = "255")
        int gidIndex() default 0;

        @AttributeDefinition(description = "with transport verbs: rdma_cm's overlay-to-host address map, entries"
                + " overlay=host (an IPv4 overlay address; an IPv4 or IPv6 host address, IPv6 with an optional"
                + " %scope), applied to the addresses of rdma_bind_addr and rdma_resolve_addr as the genuine"
                + " router's vip_map; addresses not listed pass unchanged. Changes apply in place")
        String[] addressMap() default {};
    }

    static RouterSettings.Backend backend(Config c) {
        return RouterSettings.Backend.VERBS_NAME.equals(c.transport())
                ? RouterSettings.Backend.verbs(c.device(), c.gidIndex()) : RouterSettings.Backend.SOFTWARE;
    }

    static MappingSettings mappingSettings(Config c) {
        return MappingSettings.of(c.hosts(), c.mappingPort(), c.mappingBind(), c.mappingAckTimeout(),
                c.mappingAttempts());
    }

    /** What, changed, needs a new router and socket. */
    record Identity(Path socket, Path shmDir, RouterSettings.Backend backend) {
        static Identity of(Config c) {
            return new Identity(Path.of(c.socketDir(), c.routerName()), Path.of(c.shmDir()),
                    FreeflowComponent.backend(c));
        }
    }

    /** What the running router takes in place. */
    record Tuning(Limits limits, PollerSettings poller, ControlSettings control, long reapIntervalMillis) {
        static Tuning of(Config c) {
            return new Tuning(new Limits(c.maxMrBytesPerTenant(), c.maxMrsPerTenant(), c.maxQpsPerTenant(),
                    c.maxCqsPerTenant(), c.maxPdsPerTenant(), c.maxMailboxesPerTenant(), c.maxQpWr(), c.maxCqe(), 32,
                    c.maxCompletionsPerPoll(), c.maxChannelsPerTenant(), c.maxShmBytesPerTenant()),
                    new PollerSettings(c.pollerSpins(), c.pollerSpinWaits(), c.pollerYields(),
                            c.pollerParkMaxMicros() * 1000),
                    new ControlSettings(c.controlThreads(), c.maxConnections(), c.maxConnectionsPerTenant(),
                            c.idleTimeout(), c.writeTimeout()), c.reapInterval());
        }
    }

    private Config config;
    private Identity identity;
    private volatile Router router;
    private volatile ControlServer server;
    private final Handover handover;
    private AutoCloseable offered;
    private MrMappingService mapping;
    private volatile String mappingProblem = "";

    @Activate
    public FreeflowComponent(Config config,
                             @Reference(cardinality = ReferenceCardinality.OPTIONAL) StartupGate startup,
                             @Reference Handover handover)
            throws IOException {
        this.handover = handover;
        FreeflowConfigCheck.require(config);
        try {
            start(config);
        } catch (IOException | RuntimeException e) {
            // The launcher's gate, when there is one: a router socket that cannot be opened stops a starting agent.
            if (startup != null) {
                Identity id = Identity.of(config);
                startup.unavailable(id.backend().verbs() && e instanceof IllegalArgumentException
                        ? "cannot start the Freeflow router on RDMA device " + id.backend().device() + ": "
                                + e.getMessage() + "; change freeflow.device (or freeflow.transport)"
                        : "cannot open the Freeflow router socket " + id.socket() + ": " + e
                                + "; change freeflow.socketDir (or remove the freeflow section)");
            }
            throw e;
        }
    }

    FreeflowComponent(Config config) throws IOException {
        this(config, null, null);
    }

    private void start(Config c) throws IOException {
        Identity id = Identity.of(c);
        Tuning tuning = Tuning.of(c);
        this.config = c;
        this.identity = id;
        Router r = new Router(new RouterSettings(id.shmDir(), Long.toHexString(ProcessHandle.current().pid()),
                tuning.limits(), tuning.poller(), id.backend()));
        String address = id.socket().toString();
        OptionalInt adopted = handover != null ? handover.take(Handover.FREEFLOW, address) : OptionalInt.empty();
        try {
            this.server = new ControlServer(id.socket(), adopted, r, tuning.control(), tuning.reapIntervalMillis());
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
        this.router = r;
        mapping(mappingSettings(c));
        r.addressMap(AddressMap.parse(c.addressMap()));
        if (handover != null) {
            offered = handover.offer(Handover.FREEFLOW, address, server.door());
        }
    }

    /**
     * Starts, adjusts or stops the inter-host MR mapping: a new host list applies in place, a new port or bind
     * address rebinds. A port that cannot be bound leaves the router serving without it (logged, in /status).
     */
    private void mapping(MappingSettings s) {
        MrMappingService running = mapping;
        if (running != null && s.enabled() && running.settings().port() == s.port()
                && running.settings().bind().equals(s.bind())) {
            running.hosts(s);
            return;
        }
        if (running != null) {
            router.mapping(java.util.Optional.empty());
            running.close();
            mapping = null;
        }
        mappingProblem = "";
        if (s.enabled()) {
            try {
                mapping = MrMappingService.start(s);
                router.mapping(java.util.Optional.of(mapping));
            } catch (IOException e) {
                mappingProblem = e.getMessage();
                LOG.error("{}", mappingProblem);
            }
        }
    }

    /**
     * A tuning edit applies in place (existing objects stay, a lower limit refuses only new ones); a new socket or
     * shm directory means a new router: restart.
     */
    @Modified
    void modified(Config c) throws IOException {
        if (!Identity.of(c).equals(identity)) {
            LOG.info("freeflow router restarting for its new socket or shm directory; clients lose their resources");
            stop();
            start(c);
            return;
        }
        Tuning t = Tuning.of(c);
        mapping(mappingSettings(c));
        router.addressMap(AddressMap.parse(c.addressMap()));
        router.limits(t.limits());
        router.poller().settings(t.poller());
        server.settings(t.control());
        server.reapInterval(t.reapIntervalMillis());
        config = c;
        LOG.info("freeflow tuning applied in place: {}", t);
    }


    @Deactivate
    void stop() {
        withdrawOffer();
        if (server.handedOver()) {
            int left = server.drain(config.drainTimeout());
            int holding = router.tenantsHoldingObjects();
            if (left == 0 && holding == 0) {
                LOG.info("freeflow drain after handover complete: every tenant that started here has ended");
            } else {
                LOG.warn("freeflow drain after handover: {} connection(s) and {} tenant(s) with objects still here"
                        + " after {} ms are cut", left, holding, config.drainTimeout());
            }
        }
        server.close();
        if (mapping != null) {
            mapping.close();
            mapping = null;
        }
        router.close();
    }

    private void withdrawOffer() {
        if (offered != null) {
            try {
                offered.close();
            } catch (Exception e) {
                LOG.debug("withdrawing the freeflow door: {}", e.toString());
            }
            offered = null;
        }
    }

    @Override
    public Router router() {
        return router;
    }

    @Override
    public ControlServer server() {
        return server;
    }

    @Override
    public String name() {
        return "freeflow";
    }

    @Override
    public Kind kind() {
        return Kind.ALIVE;
    }

    @Override
    public HealthStatus check() {
        long stuck = router.poller().sinceLastBeatNanos();
        if (!router.poller().alive() || stuck > 5_000_000_000L) {
            return HealthStatus.failing("mailbox poller stuck for " + stuck / 1_000_000 + " ms: clients hang");
        }
        return HealthStatus.ok(router.tenants().size() + " client(s), " + router.poller().mailboxes() + " mailboxes");
    }

    @Override
    public Object status() {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>(
                FreeflowStatus.of(config.socketDir() + "/" + config.routerName(), config.shmDir(), router, server));
        m.put("transport", identity.backend().transport());
        if (identity.backend().verbs()) {
            m.put("device", identity.backend().device());
            m.put("gidIndex", identity.backend().gidIndex());
        }
        MrMappingService running = mapping;
        if (running != null || !mappingProblem.isEmpty()) {
            java.util.Map<String, Object> mm = new java.util.LinkedHashMap<>();
            if (running != null) {
                MappingSettings s = running.settings();
                mm.put("udp", s.bind().getHostAddress() + ":" + s.port());
                mm.put("hosts", s.hosts().stream().map(java.net.InetAddress::getHostAddress).toList());
                MrMappingService.Figures f = running.figures();
                mm.put("mappings", f.mappings());
                mm.put("received", f.received());
                mm.put("unknownSenders", f.unknownSenders());
                mm.put("malformed", f.malformed());
                mm.put("announced", f.announced());
                mm.put("unacknowledged", f.unacknowledged());
                mm.put("resent", f.resent());
                mm.put("rkeyCollisions", f.collisions());
            }
            if (!mappingProblem.isEmpty()) {
                mm.put("problem", mappingProblem);
            }
            m.put("mrMapping", mm);
        }
        return m;
    }
}
