// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;

import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.health.StatusSection;
import io.rdmanode.probe.DiscoveryConsumer;
import java.time.Duration;
import java.util.Map;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

/**
 * Issue #9 item 4 on real Felix SCR, through an edit of agent.conf: {@code discovery.rescanInterval} is applied
 * by the running component (same service, same consumer instances: a device plugin would keep its socket and
 * registration), and so is another {@code sysfsRoot}: the same engine reads the new tree (issue 19: no
 * restart thread in {@code @Modified}), and consumers hear it as a diff.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class DiscoveryTuningIT extends InPlaceEditSupport {

    @Override
    String base() {
        return "agent.http.port = 0\nprobe.greeting = hello\n";
    }

    @Test
    public void aRescanIntervalOrRootEditKeepsServiceAndConsumers() throws Exception {
        awaitService(context, DiscoveryConsumer.class, Duration.ofSeconds(10));
        // Held from here on (no unget): a delayed component whose last user lets go is deactivated by SCR.
        DiscoveryConsumer consumer = consumer("A");
        long serviceId = serviceId(RdmaDiscovery.class, null);
        RdmaDiscovery discovery = consumer.discovery();

        edit(recordedHostSection().replace("rescanInterval = 0", "rescanInterval = 45s"));
        await("rescanInterval 45000 in /status", Duration.ofSeconds(10), this::tuning,
                () -> Long.valueOf(45_000).equals(tuning().get("rescanInterval")));

        assertEquals("the same discovery service", serviceId, serviceId(RdmaDiscovery.class, null));
        assertSame("the same consumer instance (not reactivated)", consumer, consumer(consumer.consumerName()));
        assertSame(discovery, consumer.discovery());

        String root = recordedHost().toString();
        edit(recordedHostSection().replace(root + "/sys", root + "/./sys"));
        await("the new sysfsRoot in /status", Duration.ofSeconds(10), this::identity,
                () -> (root + "/./sys").equals(identity().get("sysfsRoot")));
        assertEquals("another root is read by the same service", serviceId, serviceId(RdmaDiscovery.class, null));
        assertSame("the same consumer instance (not reactivated)", consumer, consumer(consumer.consumerName()));
        assertSame(discovery, consumer.discovery());
    }

    private DiscoveryConsumer consumer(String name) {
        return service(DiscoveryConsumer.class, c -> c.consumerName().equals(name));
    }

    private Map<String, Object> identity() {
        return section("identity");
    }

    private Map<String, Object> tuning() {
        return section("tuning");
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> section(String key) {
        StatusSection s = service(StatusSection.class, section -> "discovery".equals(section.name()));
        Object value = s == null ? null : ((Map<String, Object>) s.status()).get(key);
        return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }
}
