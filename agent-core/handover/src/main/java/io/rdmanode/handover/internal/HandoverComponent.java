// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import io.rdmanode.agent.AgentProperties;
import io.rdmanode.agent.Handover;
import io.rdmanode.posix.Posix;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The agent's {@link Handover} service ({@code agent.handover}): one per process, on the state directory the
 * launcher names. Its configuration applies in place ({@code @Modified}): a deactivation would drop the
 * connection to a predecessor half-way through a handover.
 */
@Component(service = Handover.class, immediate = true, configurationPid = HandoverComponent.PID,
           configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = HandoverComponent.Config.class)
public final class HandoverComponent implements Handover {

    static final String PID = "io.rdmanode.agent.handover";

    @ObjectClassDefinition(name = "Handover to a successor instance")
    public @interface Config {
        @AttributeDefinition(description = "How long a successor waits for its components to serve every door the"
                + " predecessor offered before it takes the state directory anyway (milliseconds)",
                min = "1000", max = "600000")
        long readyTimeout() default 60_000;
    }

    /** The launcher's announcement, registered once every enabled bundle was started (and so every door bound). */
    static final String STARTUP_COMPLETE = "(rdma.agent.startup=complete)";

    private final SocketHandover handover;
    private final BundleContext context;
    private final ServiceListener startupComplete = event -> {
        if (event.getType() == ServiceEvent.REGISTERED) {
            started();
        }
    };

    @Activate
    public HandoverComponent(BundleContext context, Config config) throws IOException, InvalidSyntaxException {
        String dir = context.getProperty(AgentProperties.STATE_DIR);
        // Without the launcher (an OSGi test framework) no other instance shares the directory: a private one.
        // The real path: instances naming it through a symlink and directly share one lock and socket.
        Path stateDir = dir != null ? realOrAsGiven(Path.of(dir)) : Files.createTempDirectory("rdma-agent-handover");
        this.context = context;
        this.handover = new SocketHandover(Posix.libc(), stateDir, Duration.ofMillis(config.readyTimeout())).start()
                .startedAtTheLatestIn(Duration.ofMillis(config.readyTimeout()));
        // The next instance may take over once this process has started (every door bound): the launcher's
        // announcement. Activated after it (this bundle swapped in a running agent), it is there already; with
        // no launcher (a test framework) none comes, and the readiness bound lets the next one in.
        context.addServiceListener(startupComplete, STARTUP_COMPLETE);
        if (context.getServiceReferences((String) null, STARTUP_COMPLETE) != null) {
            started();
        }
    }

    private void started() {
        handover.started();
    }

    private static Path realOrAsGiven(Path dir) {
        try {
            return dir.toRealPath();
        } catch (IOException e) {
            return dir;
        }
    }

    @Modified
    void modified(Config config) {
        handover.readyTimeout(Duration.ofMillis(config.readyTimeout()));
    }

    @Deactivate
    void stop() {
        context.removeServiceListener(startupComplete);
        handover.close();
    }

    @Override
    public OptionalInt take(String name, String address) {
        return handover.take(name, address);
    }

    @Override
    public AutoCloseable offer(String name, String address, Door door) {
        return handover.offer(name, address, door);
    }

    @Override
    public boolean handedOver() {
        return handover.handedOver();
    }

    @Override
    public boolean writer() {
        return handover.writer();
    }

    @Override
    public boolean tookOver() {
        return handover.tookOver();
    }

    @Override
    public AutoCloseable onHandedOver(Runnable action) {
        return handover.onHandedOver(action);
    }

    @Override
    public AutoCloseable onSuccessorLost(Runnable action) {
        return handover.onSuccessorLost(action);
    }
}
