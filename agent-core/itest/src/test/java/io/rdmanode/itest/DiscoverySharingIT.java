// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.probe.DiscoveryConsumer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/** Two consumer components in another bundle share the one discovery service and see the same revisions. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class DiscoverySharingIT extends AgentTestSupport {

    @Inject
    BundleContext context;

    @Configuration
    public Option[] config() {
        return agentOptions("agent.http.port = 0\nprobe.greeting = hello\n" + recordedHostDiscovery());
    }

    @Test
    public void twoConsumersShareOneServiceAndFollowTheSameRevisions() throws Exception {
        List<DiscoveryConsumer> consumers = awaitConsumers(2);
        DiscoveryConsumer a = consumers.get(0);
        DiscoveryConsumer b = consumers.get(1);
        assertSame("one service instance for both", a.discovery(), b.discovery());
        RdmaDiscovery discovery = a.discovery();
        HostSnapshot before = discovery.snapshot();
        assertEquals("the recorded ConnectX-5 host: 2 PFs + 16 VFs", 18, before.devices().size());
        assertEquals(before.revision(), a.lastRevision());
        assertEquals(before.revision(), b.lastRevision());

        // A port goes down on the recorded host: edit the tree, rescan, both consumers are told.
        RdmaPort port = before.device("mlx5_0").orElseThrow().port(1).orElseThrow();
        Path state = recordedHost().resolve("sys/class/infiniband/mlx5_0/ports/1/state");
        assertTrue(state + " exists", Files.exists(state));
        Files.writeString(state, "1: DOWN\n");
        HostSnapshot after = discovery.rescan();

        assertTrue("a new revision", after.revision() > before.revision());
        assertTrue("port state changed from " + port.state(),
                after.device("mlx5_0").orElseThrow().port(1).orElseThrow().state() != port.state());
        await("both consumers at revision " + after.revision(), Duration.ofSeconds(2),
                () -> a.lastRevision() + "/" + b.lastRevision(),
                () -> a.lastRevision() == after.revision() && b.lastRevision() == after.revision());
    }

    private List<DiscoveryConsumer> awaitConsumers(int count) throws Exception {
        await(count + " DiscoveryConsumer services", Duration.ofSeconds(10), () -> consumerRefs().size(),
                () -> consumerRefs().size() >= count);
        List<DiscoveryConsumer> consumers = new ArrayList<>();
        for (ServiceReference<DiscoveryConsumer> ref : consumerRefs()) {
            consumers.add(context.getService(ref));
        }
        consumers.sort((x, y) -> x.consumerName().compareTo(y.consumerName()));
        return consumers;
    }

    private java.util.Collection<ServiceReference<DiscoveryConsumer>> consumerRefs() {
        try {
            return context.getServiceReferences(DiscoveryConsumer.class, null);
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
