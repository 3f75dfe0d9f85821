// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.rdmanode.cni.PodAttachment;
import io.rdmanode.cni.PodAttachments;
import io.rdmanode.agent.Handover;
import io.rdmanode.agent.StartupGate;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import io.rdmanode.netlink.NetworkNamespaces;
import io.rdmanode.netlink.RdmaNetlink;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rdma CNI plugin in the agent: installs the executable, serves its socket, reconciles persisted state at
 * start, and reports a {@code cni} health check, a {@code cni} /status section and the pod placements
 * ({@link PodAttachments}) other bundles read. It runs only when the configuration has a {@code cni} section
 * (it writes into the host's CNI bin dir). Any settings change restarts it (the socket and dirs move).
 */
@Component(service = {PodAttachments.class, HealthCheck.class, StatusSection.class, CniFigures.class},
        configurationPid = CniComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = CniComponent.Config.class)
public final class CniComponent implements PodAttachments, HealthCheck, StatusSection, CniFigures {

    static final String PID = "io.rdmanode.cni";
    private static final Logger LOG = LoggerFactory.getLogger(CniComponent.class);

    @ObjectClassDefinition(name = "RDMA CNI plugin",
            description = "Where the rdma CNI executable goes, the socket it talks to and the persisted state")
    public @interface Config {
        @AttributeDefinition(description = "CNI bin dir the rdma executable is installed into")
        String binDir() default "/opt/cni/bin";

        @AttributeDefinition(description = "Unix socket the rdma executable connects to (mode 0600; at most 82"
                + " bytes)")
        String socket() default "/run/rdma-node-agent/cni.sock";

        @AttributeDefinition(description = "directory of the per-attachment state files (mode 0700)")
        String stateDir() default "/var/lib/rdma-node-agent/cni";

        @AttributeDefinition(description = "install (or update) the rdma executable in binDir at start")
        boolean installClient() default true;

        @AttributeDefinition(description = "how long the rdma executable waits for the agent (connect, send, answer)"
                + " before it answers CNI error 11 naming the socket, in milliseconds; well below the runtime's own"
                + " limit (kubelet's runtime-request-timeout, 2 minutes, for the whole pod sandbox)", min = "100",
                max = "600000")
        long clientTimeout() default 30_000;

        @AttributeDefinition(description = "time a connection to the CNI socket has to send its whole request (and"
                + " later to read its answer) before the agent closes it, in milliseconds", min = "100",
                max = "600000")
        long requestTimeout() default 10_000;

        @AttributeDefinition(description = "largest CNI request (network configuration on stdin plus the CNI_*"
                + " environment), in bytes; larger ones are CNI error 6", min = "4096", max = "67108864")
        long maxRequestBytes() default 1 << 20;

        @AttributeDefinition(description = "connections open at once on the CNI socket; past it the oldest one"
                + " still sending its request is closed", min = "4", max = "65536")
        int maxConnections() default 256;
    }

    private final CniHandler handler;
    private final CniServer server;
    private final Config config;
    private final String installState;
    private final int reconciled;
    private final CniStats stats = new CniStats();
    private final AutoCloseable offered;
    /** The DRA driver's prepared VFs by pod, when it runs ({@link PreparedPodDevices}). */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = org.osgi.service.component.annotations.ReferencePolicy.DYNAMIC)
    volatile List<io.rdmanode.cni.PreparedPodDevices> preparedPodDevices = List.of();

    @Activate
    public CniComponent(Config config, @Reference RdmaDiscovery discovery, @Reference RdmaNetlink rdma,
                        @Reference NetworkNamespaces namespaces,
                        @Reference(cardinality = ReferenceCardinality.OPTIONAL) StartupGate startup,
                        @Reference Handover handover)
            throws IOException {
        this(config, new DiscoveryResolver(discovery), rdma, namespaces, startup, handover);
    }

    CniComponent(Config config, DeviceResolver devices, RdmaNetlink rdma, NetworkNamespaces namespaces)
            throws IOException {
        this(config, devices, rdma, namespaces, null, null);
    }

    /** @param startup the launcher's, when there is one: a socket that cannot be served stops a starting agent */
    CniComponent(Config config, DeviceResolver devices, RdmaNetlink rdma, NetworkNamespaces namespaces,
                 StartupGate startup, Handover handover) throws IOException {
        CniConfigCheck.require(config);
        this.config = config;
        this.handler = new CniHandler(new AttachmentStore(Path.of(config.stateDir())), rdma, namespaces, devices,
                stats, Clock.systemUTC());
        handler.preparedDevices(uid -> preparedPodDevices.stream().flatMap(p -> p.forPod(uid).stream()).toList());
        int repaired = handler.reconcile();
        this.installState = install(config);
        try {
            OptionalInt adopted = handover != null ? handover.take(Handover.CNI, config.socket()) : OptionalInt.empty();
            this.server = new CniServer(Path.of(config.socket()), adopted, handler::handle, new CniServer.Limits(
                    config.maxRequestBytes(), config.requestTimeout(), config.maxConnections()), stats);
        } catch (IOException | RuntimeException e) {
            if (startup != null) {
                startup.unavailable("cannot serve the CNI socket " + config.socket() + ": " + e
                        + "; change cni.socket (or set agent.bundles.cni.enabled = false)");
            }
            throw e;
        }
        this.offered = handover == null ? null
                : server.door().map(door -> handover.offer(Handover.CNI, config.socket(), door)).orElse(null);
        // A DEL that found no socket just before it opened left its tombstone after the first pass.
        this.reconciled = repaired + handler.finishDeletesRequestedWhileDown();
        LOG.info("rdma CNI serving on {}; client {}; {} attachment(s), {} repaired at start", config.socket(),
                installState, attachments().size(), reconciled);
    }

    private static String install(Config config) {
        if (!config.installClient()) {
            Path client = Path.of(config.binDir(), "rdma");
            ClientInstaller.slot(client, ClientInstaller.STATE_DIR_MARKER).filter(d -> !d.equals(config.stateDir()))
                    .ifPresent(d -> LOG.warn("the rdma executable in {} (not installed by the agent: installClient ="
                            + " false) looks for CNI state in {}, the agent keeps it in {}: a DEL while the agent is"
                            + " down cannot see its attachments", config.binDir(), d, config.stateDir()));
            return "not installed (installClient = false); found " + ClientInstaller.installedVersion(client);
        }
        try {
            ClientInstaller.Result r = ClientInstaller.install(Path.of(config.binDir()), config.socket(),
                    config.stateDir(), new ClientInstaller.Limits(config.clientTimeout(), config.maxRequestBytes()));
            return r.action() + ": " + r.target() + " version " + r.installedVersion();
        } catch (IOException e) {
            LOG.error("cannot install the rdma CNI executable into {}: {}", config.binDir(), e.getMessage());
            return "failed: " + e.getMessage();
        }
    }

    @Override
    public CniStats stats() {
        return stats;
    }

    @Override
    public String installedVersion() {
        return ClientInstaller.installedVersion(Path.of(config.binDir(), "rdma"));
    }

    CniHandler handler() {
        return handler;
    }

    @Deactivate
    void stop() {
        if (offered != null) {
            try {
                offered.close();
            } catch (Exception e) {
                LOG.debug("withdrawing the CNI door: {}", e.toString());
            }
        }
        server.close();
    }

    @Override
    public List<PodAttachment> attachments() {
        return handler.store().all().stream().filter(a -> a.phase() == Attachment.Phase.ADDED)
                .map(Attachment::toApi)
                .sorted(Comparator.comparing(PodAttachment::podNamespace).thenComparing(PodAttachment::podName))
                .toList();
    }

    @Override
    public String name() {
        return "cni";
    }

    @Override
    public Kind kind() {
        return Kind.READY;
    }

    @Override
    public HealthStatus check() {
        return server.isOpen() ? HealthStatus.ok("serving " + config.socket())
                : HealthStatus.failing("CNI socket " + config.socket() + " closed");
    }

    @Override
    public Object status() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("socket", config.socket());
        s.put("client", installState);
        s.put("installedVersion", ClientInstaller.installedVersion(Path.of(config.binDir(), "rdma")));
        s.put("stateDir", config.stateDir());
        // Where the installed executable looks for attachments on a DEL while the agent is down: stateDir, unless
        // installClient = false left another client there.
        s.put("clientStateDir", ClientInstaller.slot(Path.of(config.binDir(), "rdma"), ClientInstaller.STATE_DIR_MARKER)
                .orElse("none"));
        s.put("repairedAtStart", reconciled);
        s.put("attachments", attachments().stream().map(a -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("pod", a.podNamespace() + "/" + a.podName());
            m.put("rdmaDevice", a.rdmaDevice());
            m.put("pciAddress", a.pciAddress());
            m.put("network", a.network());
            m.put("containerId", a.containerId());
            m.put("ifname", a.ifname());
            m.put("netns", a.netns());
            m.put("since", a.since().toString());
            return m;
        }).toList());
        return s;
    }
}
