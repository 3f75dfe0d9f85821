// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.agent.AgentProperties;
import io.rdmanode.agent.Handover;
import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HttpEndpoint;
import io.rdmanode.health.StatusSection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Hashtable;
import java.util.List;
import java.util.Optional;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleListener;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's HTTP endpoint as a component: binds on activation, gathers the health, status and endpoint
 * whiteboards, and publishes the bound address (a {@link BoundHttpEndpoint} service with
 * {@value #PORT_PROPERTY}, and {@code <stateDir>/http.url}). A configuration change re-binds: SCR deactivates
 * and reactivates it, since a new address means a new socket anyway.
 */
@Component(service = {}, immediate = true, configurationPid = AgentHttpServer.PID,
           configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = AgentHttpServer.Config.class)
public final class AgentHttpServer {

    static final String PID = "io.rdmanode.agent.http";
    static final String PORT_PROPERTY = "io.rdmanode.http.port";
    static final String STATE_DIR_PROPERTY = AgentProperties.STATE_DIR;
    static final String VERSION_PROPERTY = AgentProperties.VERSION;
    static final String STARTED_AT_PROPERTY = AgentProperties.STARTED_AT;
    private static final Logger LOG = LoggerFactory.getLogger(AgentHttpServer.class);

    @ObjectClassDefinition(name = "Agent HTTP endpoint", description = "/healthz, /readyz, /status and the"
            + " endpoints other bundles contribute (such as /metrics)")
    public @interface Config {
        @AttributeDefinition(description = "Interface to bind; 0.0.0.0 exposes it to the network")
        String host() default "127.0.0.1";

        @AttributeDefinition(description = "TCP port; 0 picks a free one, written to <stateDir>/http.url",
                min = "0", max = "65535")
        int port() default 9456;

        @AttributeDefinition(description = "Threads for /status and contributed endpoints such as /metrics;"
                + " /healthz and /readyz answer from the event loop", min = "1", max = "16")
        int threads() default 2;

        @AttributeDefinition(description = "Milliseconds a client has to send a complete request head, from"
                + " connecting; past it the connection is closed", min = "100", max = "600000")
        long headerTimeout() default 5000;

        @AttributeDefinition(description = "Milliseconds a kept-alive connection may sit between requests",
                min = "100", max = "3600000")
        long idleTimeout() default 30000;

        @AttributeDefinition(description = "Connections open at once; past it a new one is closed at once",
                min = "1", max = "65536")
        int maxConnections() default 512;

        @AttributeDefinition(description = "Bytes of request line, and of request headers, accepted (414, 431"
                + " past it)", min = "1024", max = "65536")
        int maxHeaderSize() default 8192;
    }

    /** The configured bounds over {@link HttpSettings#DEFAULTS}. */
    static HttpSettings settings(Config config) {
        return HttpSettings.DEFAULTS.withThreads(config.threads())
                .withTimeouts(Duration.ofMillis(config.headerTimeout()), Duration.ofMillis(config.idleTimeout()))
                .withMaxConnections(config.maxConnections())
                .withMaxHeaderSize(config.maxHeaderSize());
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<HealthCheck> checks = List.of();

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
               policyOption = ReferencePolicyOption.GREEDY)
    private volatile ServiceComponentRuntime scr;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
               policyOption = ReferencePolicyOption.GREEDY)
    private volatile ConfigurationAdmin configAdmin;

    /** The address the endpoint last bound in this bundle's life: where it stays when an edit's cannot be bound. */
    private static volatile InetSocketAddress lastBound;
    /** Until SCR has injected the references (after the constructor), readiness is not computed from none. */
    private static final HealthCheck GATHERING = new FixedCheck("http",
            io.rdmanode.health.HealthStatus.waiting("the endpoint (re)started and is gathering the checks"));
    private volatile boolean referencesBound;
    private final String bindRefusal;
    private ServiceRegistration<HealthCheck> refusalCheck;

    private final HealthHttpServer server;
    private final ServiceRegistration<BoundHttpEndpoint> registration;
    private final Optional<UrlFile> urlFile;

    private final Handover handover;
    private final AutoCloseable offered;
    private final BundleContext context;
    private final ServiceListener changes;
    private final BundleListener bundleChanges;

    @Activate
    public AgentHttpServer(Config config, BundleContext context, @Reference Handover handover) {
        this.handover = handover;
        HttpConfigCheck.require(config);
        AgentInfo agent = AgentInfo.of(context.getProperty(VERSION_PROPERTY),
                context.getProperty(STARTED_AT_PROPERTY), Instant.now())
                .withCds(context.getProperty(AgentInfo.CDS_PROPERTY));
        HealthSources sources = new OsgiHealthSources(context,
                () -> referencesBound ? checks : List.of(GATHERING), () -> scr, () -> configAdmin, agent);
        HttpSettings settings = settings(config);
        InetSocketAddress wanted = new InetSocketAddress(config.host(), config.port());
        HealthHttpServer serving;
        String refused = null;
        try {
            serving = bind(wanted, settings, sources);
        } catch (RuntimeException e) {
            // A live edit to an address that cannot be bound (taken, unresolvable) reactivated this component after
            // the old socket closed: failing here left the agent with no endpoint at all, so no /healthz for the
            // liveness probe and no /status saying why. It serves on the address it had, until an edit names one
            // it can bind, and /readyz reports the refusal. At start there is no previous address: the launcher's
            // pre-start check already failed fast on a taken port.
            InetSocketAddress previous = lastBound;
            if (previous == null || previous.equals(wanted)) {
                throw e;
            }
            refused = "cannot bind " + config.host() + ":" + config.port() + " (" + reason(e) + "); serving on "
                    + previous.getHostString() + ":" + previous.getPort() + ", the address before the edit";
            LOG.error("http endpoint {}: fix agent.http in the configuration", refused);
            serving = bind(previous, settings, sources);
        }
        this.server = serving;
        this.bindRefusal = refused;
        InetSocketAddress at = refused == null ? wanted : lastBound;
        lastBound = new InetSocketAddress(at.getHostString(), server.port());   // port 0: the one it picked
        String address = at.getHostString() + ":" + at.getPort(); // as the launcher's pre-start check names it
        this.offered = server.door().map(door -> handover.offer(Handover.HTTP, address, door)).orElse(null);
        URI uri = server.uri();
        LOG.info("http endpoint listening on {} port={} threads={} maxConnections={} headerTimeout={}ms"
                + " idleTimeout={}ms", uri, server.port(), settings.threads(), settings.maxConnections(),
                settings.headerTimeout().toMillis(), settings.idleTimeout().toMillis());
        this.urlFile = Optional.ofNullable(context.getProperty(STATE_DIR_PROPERTY)).map(d -> new UrlFile(Path.of(d)));
        urlFile.ifPresent(file -> writeUrl(file, uri));
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(PORT_PROPERTY, server.port());
        properties.put("io.rdmanode.http.url", uri.toString());
        BoundHttpEndpoint bound = () -> uri;
        this.registration = context.registerService(BoundHttpEndpoint.class, bound, properties);
        // What changes readiness without a timer: a bundle starting or stopping, a check coming or going, the
        // launcher's end of start-up. Each refreshes the cached result at once (HealthCache.refreshSoon).
        this.context = context;
        this.changes = event -> server.refreshHealthSoon();
        this.bundleChanges = event -> server.refreshHealthSoon();
        try {
            context.addServiceListener(changes, "(|(" + Constants.OBJECTCLASS + "=" + HealthCheck.class.getName()
                    + ")" + StartupCheck.COMPLETE_FILTER + ")");
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        context.addBundleListener(bundleChanges);
        server.refreshHealthSoon();                       // what changed between the first refresh and the listeners
    }

    /**
     * Called by SCR after the constructor, once the references are injected: before this the check list was empty
     * and /readyz answered 200 with nothing checked (seen right after a live edit re-bound the endpoint, when the
     * launcher then logged "agent ready"). A refused re-bind becomes a READY check here.
     */
    @Activate
    void referencesBound() {
        if (bindRefusal != null) {
            String why = bindRefusal;
            refusalCheck = context.registerService(HealthCheck.class,
                    new FixedCheck("http", io.rdmanode.health.HealthStatus.failing(why)), null);
        }
        referencesBound = true;
        server.refreshHealthSoon();
    }

    private HealthHttpServer bind(InetSocketAddress at, HttpSettings settings, HealthSources sources) {
        String address = at.getHostString() + ":" + at.getPort();   // as the launcher's pre-start check names it
        return new HealthHttpServer(at, () -> handover.take(Handover.HTTP, address), settings, sources,
                Clock.systemUTC());
    }

    private static String reason(RuntimeException e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
    }

    @Deactivate
    void stop() {
        if (refusalCheck != null) {
            refusalCheck.unregister();
        }
        context.removeServiceListener(changes);
        context.removeBundleListener(bundleChanges);
        registration.unregister();
        if (offered != null) {
            try {
                offered.close();
            } catch (Exception e) {
                LOG.debug("withdrawing the http door: {}", e.toString());
            }
        }
        if (!server.handedOver() && !handover.handedOver()) {
            urlFile.ifPresent(AgentHttpServer::deleteUrl); // else the successor's: the same URL, its file
        }
        server.close();
        LOG.info("http endpoint stopped url={}", server.uri());
    }

    @Reference(name = "sections", service = StatusSection.class, cardinality = ReferenceCardinality.MULTIPLE,
               policy = ReferencePolicy.DYNAMIC)
    void bindSection(StatusSection section, ServiceReference<StatusSection> reference) {
        server.addSection(section, owner(reference));
    }

    void unbindSection(StatusSection section) {
        server.removeSection(section);
    }

    @Reference(name = "endpoints", service = HttpEndpoint.class, cardinality = ReferenceCardinality.MULTIPLE,
               policy = ReferencePolicy.DYNAMIC, updated = "updatedEndpoint")
    void bindEndpoint(HttpEndpoint endpoint, ServiceReference<HttpEndpoint> reference) {
        server.addEndpoint(endpoint, owner(reference));
    }

    /** An endpoint component applied a configuration edit in place (SCR updates its service properties). */
    void updatedEndpoint(HttpEndpoint endpoint, ServiceReference<HttpEndpoint> reference) {
        server.updateEndpoint(endpoint, owner(reference));
    }

    void unbindEndpoint(HttpEndpoint endpoint) {
        server.removeEndpoint(endpoint);
    }

    /** Names a whiteboard service in warnings: {@code io.rdmanode.metrics service.id=42}. */
    private static String owner(ServiceReference<?> reference) {
        var bundle = reference.getBundle();
        return (bundle == null ? "unregistered" : bundle.getSymbolicName()) + " service.id="
                + reference.getProperty(Constants.SERVICE_ID);
    }

    /** Serving matters more than the file: a failure is reported, not fatal. */
    private static void writeUrl(UrlFile file, URI uri) {
        try {
            file.write(uri);
        } catch (IOException e) {
            LOG.warn("cannot write {}: {}", file.path(), e.toString());
        }
    }

    private static void deleteUrl(UrlFile file) {
        try {
            file.delete();
        } catch (IOException e) {
            LOG.warn("cannot delete {}: {}", file.path(), e.toString());
        }
    }
}
