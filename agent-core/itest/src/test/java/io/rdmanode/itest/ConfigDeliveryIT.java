// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import io.rdmanode.probe.Probe;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.inject.Inject;
import org.junit.After;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;

/** The HOCON file reaches components as typed ConfigAdmin configuration, live, and bad edits change nothing. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class ConfigDeliveryIT extends AgentTestSupport {

    static final String INITIAL = """
            agent.http.port = 0
            probe {
              greeting = hello
              size = 8
              interval = 2s
              tags = [a, b]
            }
            """;

    @Inject
    BundleContext context;

    @Configuration
    public Option[] config() {
        return agentOptions(INITIAL);
    }

    /**
     * Pax Exam computes the options (and so writes the file) once for all methods, while each method gets a
     * fresh framework: put the file back so the next one starts from {@link #INITIAL}.
     */
    @After
    public void restoreInitialConfiguration() throws Exception {
        writeConfig(INITIAL);
    }

    @Test
    public void componentReceivesItsTypedConfiguration() throws Exception {
        Probe probe = awaitService(context, Probe.class, Duration.ofSeconds(10));
        Map<String, Object> config = probe.config();
        assertEquals("hello", config.get("greeting"));
        assertEquals(8, config.get("size"));
        assertEquals(2000L, config.get("interval"));
        assertEquals(List.of("a", "b"), config.get("tags"));
    }

    @Test
    public void savedEditReachesTheComponentAsAModificationWithinOneSecond() throws Exception {
        Probe probe = awaitService(context, Probe.class, Duration.ofSeconds(10));
        // Held, not tracked: ConfigAdmin is a service factory, an instance dies with its last unget.
        ConfigurationAdmin admin = context.getService(context.getServiceReference(ConfigurationAdmin.class));
        long httpChanges = admin.getConfiguration("io.rdmanode.agent.http", "?").getChangeCount();
        writeConfig(INITIAL.replace("greeting = hello", "greeting = \"hello again\""));

        Duration took = await("greeting change", APPLY_BOUND, probe::config,
                () -> "hello again".equals(probe.config().get("greeting")));

        System.out.println("config edit reached the component in " + took.toMillis() + " ms");
        assertEquals("modified in place, not re-created", 1, probe.modifications());
        assertSame(probe, awaitService(context, Probe.class, Duration.ofSeconds(1)));
        assertEquals("the HTTP endpoint's unchanged configuration is not touched", httpChanges,
                admin.getConfiguration("io.rdmanode.agent.http", "?").getChangeCount());
    }

    @Test
    public void invalidEditIsRejectedAndThePreviousConfigurationStays() throws Exception {
        Probe probe = awaitService(context, Probe.class, Duration.ofSeconds(10));
        writeConfig(INITIAL.replace("size = 8", "size = 100").replace("greeting = hello", "greting = hi"));

        await("rejection reported", Duration.ofSeconds(2), () -> safeStatus(),
                () -> safeStatus().get("lastRejected") instanceof Map);

        @SuppressWarnings("unchecked")
        List<String> problems = (List<String>) ((Map<String, Object>) safeStatus().get("lastRejected")).get("problems");
        String all = String.join("\n", problems);
        assertTrue(all, all.contains("agent.conf:4") && all.contains("probe.size"));
        assertTrue(all, all.contains("probe.greting") && all.contains("greeting"));
        assertEquals("hello", probe.config().get("greeting"));
        assertEquals(8, probe.config().get("size"));
        assertEquals(0, probe.modifications());
    }

    /**
     * A device-plugins directory in which no plugin socket could be bound (sun_path) is refused before it
     * applies, with file, line and key, through the kubelet bundle's own MetaType (issue 8, item 1).
     */
    @Test
    public void pluginDirectoryTooLongForAnySocketIsRefusedWithFileLineAndKey() throws Exception {
        awaitService(context, Probe.class, Duration.ofSeconds(10));
        writeConfig(INITIAL + "kubelet {\n  registration = classic\n  pluginDir = \"/var/lib/"
                + "deep/".repeat(12) + "device-plugins\"\n}\n");

        await("rejection reported", Duration.ofSeconds(2), () -> safeStatus(),
                () -> safeStatus().get("lastRejected") instanceof Map);

        @SuppressWarnings("unchecked")
        List<String> problems = (List<String>) ((Map<String, Object>) safeStatus().get("lastRejected")).get("problems");
        String all = String.join("\n", problems);
        assertTrue(all, all.contains("agent.conf:10") && all.contains("kubelet.pluginDir")
                && all.contains("greater than the maximum length"));
    }

    @Test
    public void bundleDisabledInConfigStopsAndStartsAgainWhenReEnabled() throws Exception {
        awaitService(context, Probe.class, Duration.ofSeconds(10));
        org.osgi.framework.Bundle bundle = probeBundle();

        writeConfig(INITIAL + "agent.bundles.probe.enabled = false\n");
        await("probe bundle stopped", Duration.ofSeconds(2), bundle::getState,
                () -> bundle.getState() == org.osgi.framework.Bundle.RESOLVED);
        assertEquals(null, context.getServiceReference(Probe.class));

        writeConfig(INITIAL + "agent.bundles.probe.enabled = true\n");
        Probe probe = awaitService(context, Probe.class, Duration.ofSeconds(2));
        assertEquals(org.osgi.framework.Bundle.ACTIVE, bundle.getState());
        assertEquals("hello", probe.config().get("greeting"));
    }

    private org.osgi.framework.Bundle probeBundle() {
        for (org.osgi.framework.Bundle b : context.getBundles()) {
            if ("io.rdmanode.probe".equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError("probe bundle not installed");
    }

    private Map<String, Object> safeStatus() {
        try {
            Map<String, Object> status = configStatus(context);
            assertNotNull(status);
            return status;
        } catch (Exception e) {
            return Map.of("error", e.toString());
        }
    }
}
