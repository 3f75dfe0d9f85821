// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal;

import io.rdmanode.agent.Handover;
import io.rdmanode.agent.RdmaDeviceChooser;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Function;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
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
 *
 * <p>With {@code freeflow.deviceSelectors} the verbs transport's device is chosen by the pools' selectors, which the
 * device-plugin layer owns: it is asked through the platform API's {@link RdmaDeviceChooser}, a dynamic, optional
 * reference, so this bundle imports no package of the device-plugin or discovery bundles and a hot swap of those
 * never refreshes it. The chooser is asked only when the router (re)starts; a running router keeps its device
 * while the chooser goes, comes back or is replaced. Without one the router waits, no socket open, and says why
 * (health, {@code /status}); the first chooser to come starts it.
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
                + " named by device or chosen by deviceSelectors; the NIC moves the data, also to other hosts)",
                options = {
                    @Option(label = "software", value = "software"), @Option(label = "verbs", value = "verbs")})
        String transport() default RouterSettings.Backend.SOFTWARE_NAME;

        @AttributeDefinition(description = "with transport verbs: the RDMA device's name (as in"
                + " /sys/class/infiniband, e.g. mlx5_0 or rxe0)")
        String device() default "";

        @AttributeDefinition(description = "with transport verbs, instead of device: the device chosen by the pools'"
                + " selectors, the first whole HCA (by RDMA device name) that they take, asked of the device-plugin"
                + " layer when the router starts; vendors (hex PCI vendor IDs, e.g. 15b3)")
        String[] deviceSelectors_vendors() default {};

        @AttributeDefinition(description = "deviceSelectors: PCI device IDs (hex, e.g. 1017)")
        String[] deviceSelectors_devices() default {};

        @AttributeDefinition(description = "deviceSelectors: kernel drivers of the PCI function (mlx5_core)")
        String[] deviceSelectors_drivers() default {};

        @AttributeDefinition(description = "deviceSelectors: PCI addresses (0000:3b:00.0)")
        String[] deviceSelectors_pciAddresses() default {};

        @AttributeDefinition(description = "deviceSelectors: network interface names of the device (ens1f0)")
        String[] deviceSelectors_ifNames() default {};

        @AttributeDefinition(description = "deviceSelectors: PF netdev names, as the SR-IOV pools write them")
        String[] deviceSelectors_pfNames() default {};

        @AttributeDefinition(description = "deviceSelectors: PF PCI addresses, as the SR-IOV pools write them")
        String[] deviceSelectors_rootDevices() default {};

        @AttributeDefinition(description = "deviceSelectors: port link types (ether, infiniband)")
        String[] deviceSelectors_linkTypes() default {};

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

    /**
     * {@code freeflow.deviceSelectors}, kind to entries, only the kinds given (in {@link RdmaDeviceChooser#KINDS}
     * order); empty when none is.
     */
    static Map<String, List<String>> deviceSelectors(Config c) {
        Map<String, List<String>> m = new LinkedHashMap<>();
        List<String[]> values = List.of(c.deviceSelectors_vendors(), c.deviceSelectors_devices(),
                c.deviceSelectors_drivers(), c.deviceSelectors_pciAddresses(), c.deviceSelectors_ifNames(),
                c.deviceSelectors_pfNames(), c.deviceSelectors_rootDevices(), c.deviceSelectors_linkTypes());
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i).length > 0) {
                m.put(RdmaDeviceChooser.KINDS.get(i), List.of(values.get(i)));
            }
        }
        return m;
    }

    /**
     * What, changed, needs a new router and socket. With selectors ({@code deviceSelectors} non-empty only with the
     * verbs transport) the backend names no device: the selectors are the identity, and the device they chose when
     * the router started stays until one of these changes.
     */
    record Identity(Path socket, Path shmDir, RouterSettings.Backend backend, Map<String, List<String>> selectors) {
        static Identity of(Config c) {
            RouterSettings.Backend backend = FreeflowComponent.backend(c);
            return new Identity(Path.of(c.socketDir(), c.routerName()), Path.of(c.shmDir()), backend,
                    backend.verbs() ? deviceSelectors(c) : Map.of());
        }

        boolean choosesDevice() {
            return !selectors.isEmpty();
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

    private volatile Config config;
    private volatile Identity identity;
    /** The running router's backend: with selectors, the device they chose; null while there is no router. */
    private volatile RouterSettings.Backend backend;
    private volatile Router router;
    private volatile ControlServer server;
    private final Handover handover;
    private final StartupGate startup;
    /** How a router is made; tests put one on a fake device. */
    private final Function<RouterSettings, Router> routers;
    private AutoCloseable offered;
    private MrMappingService mapping;
    private volatile String mappingProblem = "";
    /** The device-plugin layer's chooser, while it is there ({@link #bindChooser}). */
    private volatile RdmaDeviceChooser chooser;
    /** Why there is no router (it waits for its device), empty while one runs. */
    private volatile String waiting = "";

    @Activate
    public FreeflowComponent(Config config,
                             @Reference(cardinality = ReferenceCardinality.OPTIONAL) StartupGate startup,
                             @Reference Handover handover)
            throws IOException {
        this(config, startup, handover, Router::new);
    }

    FreeflowComponent(Config config, StartupGate startup, Handover handover,
                      Function<RouterSettings, Router> routers) throws IOException {
        this.handover = handover;
        this.startup = startup;
        this.routers = routers;
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
        this(config, null, null, Router::new);
    }

    /**
     * The device-plugin layer's chooser came (or replaced another): a router waiting for its device starts now; a
     * running one keeps its device (its clients keep their objects). Dynamic and greedy, so that the layer's
     * bundle coming, going or being swapped never reactivates this component.
     */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
               policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindChooser")
    synchronized void bindChooser(RdmaDeviceChooser c) {
        chooser = c;
        Config c0 = config;
        if (router == null && c0 != null && identity.choosesDevice()) {
            startChosen(c0);
        }
    }

    /** The chooser went: nothing running changes; only a later (re)start needs one again. */
    synchronized void unbindChooser(RdmaDeviceChooser c) {
        if (chooser == c) {
            chooser = null;
            if (router == null && identity != null && identity.choosesDevice()) {
                waiting = NO_CHOOSER;
            }
        }
    }

    /**
     * DS calls this after the constructor and the bind of a chooser that is there: a router still without a
     * chooser says so once (the constructor cannot know yet).
     */
    @Activate
    synchronized void activated() {
        if (router == null && identity.choosesDevice() && chooser == null) {
            LOG.warn("freeflow router {}", NO_CHOOSER);
        }
    }

    static final String NO_CHOOSER = "waiting for the device-plugin layer (bundle deviceplugin) to choose the RDMA"
            + " device by freeflow.deviceSelectors; no router socket until then (or name freeflow.device instead)";

    /**
     * Starts the router on the device the chooser picks by the selectors, or leaves it waiting, saying why: no
     * chooser, selectors that take no device here, or a device that cannot be opened. Never throws: it runs when
     * the chooser binds, long after activation; while the agent starts, the launcher's gate hears a failure.
     */
    private void startChosen(Config c) {
        RdmaDeviceChooser ch = chooser;
        if (ch == null) {
            waiting = NO_CHOOSER;                 // logged by activated(): DS binds the chooser after the constructor
            return;
        }
        String device;
        try {
            device = ch.choose(identity.selectors());
        } catch (RuntimeException e) {
            unavailable("cannot choose the Freeflow router's RDMA device by freeflow.deviceSelectors "
                    + identity.selectors() + ": " + e.getMessage() + "; change freeflow.deviceSelectors");
            return;
        }
        LOG.info("freeflow device {} chosen by freeflow.deviceSelectors {}", device, identity.selectors());
        try {
            open(c, RouterSettings.Backend.verbs(device, identity.backend().gidIndex()));
        } catch (IOException e) {
            unavailable("cannot open the Freeflow router socket " + identity.socket() + ": " + e
                    + "; change freeflow.socketDir (or remove the freeflow section)");
        } catch (RuntimeException e) {
            unavailable("cannot start the Freeflow router on RDMA device " + device + " (chosen by"
                    + " freeflow.deviceSelectors): " + e.getMessage() + "; change freeflow.deviceSelectors");
        }
    }

    private void unavailable(String line) {
        waiting = line;
        LOG.error("{}", line);
        if (startup != null) {
            startup.unavailable(line);
        }
    }

    /** With selectors the device is chosen first ({@link #startChosen}); otherwise the configured backend opens. */
    private void start(Config c) throws IOException {
        Identity id = Identity.of(c);
        this.config = c;
        this.identity = id;
        if (id.choosesDevice()) {
            startChosen(c);
        } else {
            open(c, id.backend());
        }
    }

    private void open(Config c, RouterSettings.Backend b) throws IOException {
        Identity id = identity;
        Tuning tuning = Tuning.of(c);
        // The clients' /dev/shm as this agent sees it: made when missing, like the socket's directory (the demo
        // keeps both in its state directory). Without it every CQ, QP and MR failed with ENOMEM.
        try {
            java.nio.file.Files.createDirectories(id.shmDir());
        } catch (IOException e) {
            throw new IOException("freeflow.shmDir " + id.shmDir() + " is not a directory the router can use: " + e, e);
        }
        Router r = routers.apply(new RouterSettings(id.shmDir(), Long.toHexString(ProcessHandle.current().pid()),
                tuning.limits(), tuning.poller(), b));
        String address = id.socket().toString();
        OptionalInt adopted = handover != null ? handover.take(Handover.FREEFLOW, address) : OptionalInt.empty();
        try {
            this.server = new ControlServer(id.socket(), adopted, r, tuning.control(), tuning.reapIntervalMillis());
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
        this.router = r;
        this.backend = b;
        this.waiting = "";
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
    synchronized void modified(Config c) throws IOException {
        if (!Identity.of(c).equals(identity)) {
            LOG.info("freeflow router restarting for its new socket, shm directory, transport, device or device"
                    + " selectors; clients lose their resources");
            stop();
            start(c);
            return;
        }
        if (router == null) {                    // still waiting for its device: try again with what is there now
            config = c;
            startChosen(c);
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
    synchronized void stop() {
        withdrawOffer();
        if (router == null) {
            return;                               // it waited for its device: nothing was opened
        }
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
        router = null;
        server = null;
        backend = null;
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

    /**
     * ALIVE while a router runs (a stuck poller means "restart me"); READY while it waits for its device, which
     * means "do not rely on me yet": a restart would not bring the device-plugin layer or a device the selectors
     * take, and /readyz (and the launcher's start-up report) says why.
     */
    @Override
    public Kind kind() {
        return router == null ? Kind.READY : Kind.ALIVE;
    }

    @Override
    public HealthStatus check() {
        Router r = router;
        if (r == null) {
            return HealthStatus.failing("no router: " + waiting);
        }
        long stuck = r.poller().sinceLastBeatNanos();
        if (!r.poller().alive() || stuck > 5_000_000_000L) {
            return HealthStatus.failing("mailbox poller stuck for " + stuck / 1_000_000 + " ms: clients hang");
        }
        return HealthStatus.ok(r.tenants().size() + " client(s), " + r.poller().mailboxes() + " mailboxes");
    }

    @Override
    public Object status() {
        Config c = config;
        Identity id = identity;
        Router r = router;
        ControlServer srv = server;
        RouterSettings.Backend b = backend;
        if (r == null || srv == null || b == null) {
            java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("socket", c.socketDir() + "/" + c.routerName());
            m.put("shmDir", c.shmDir());
            m.put("transport", id.backend().transport());
            m.put("deviceSelectors", id.selectors());
            m.put("router", "waiting");
            m.put("problem", waiting);
            return m;
        }
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>(
                FreeflowStatus.of(c.socketDir() + "/" + c.routerName(), c.shmDir(), r, srv));
        m.put("transport", b.transport());
        if (b.verbs()) {
            m.put("device", b.device());
            if (id.choosesDevice()) {
                m.put("deviceChosenBy", "deviceSelectors");
                m.put("deviceSelectors", id.selectors());
            }
            m.put("gidIndex", b.gidIndex());
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
                mm.put("ambiguousLookups", f.ambiguous());
            }
            if (!mappingProblem.isEmpty()) {
                mm.put("problem", mappingProblem);
            }
            m.put("mrMapping", mm);
        }
        return m;
    }
}
