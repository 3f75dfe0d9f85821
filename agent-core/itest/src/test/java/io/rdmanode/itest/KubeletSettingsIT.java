// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertEquals;

import io.rdmanode.kubelet.DevicePluginHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Live tuning of the device-plugin host (issue 9 item 4) in real Felix and SCR: an edit of its timeouts
 * reaches the running host through {@code @Modified} with no socket closed and no registration, while moving
 * the device-plugins directory restarts the host and the pools register from the new directory.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class KubeletSettingsIT extends AgentTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Inject
    BundleContext context;

    String config(Path pluginDir, String tuning) {
        return """
                agent.http.port = 0
                kubelet { pluginDir = "%s", registration = classic %s }
                deviceplugin.shared.pools = [ { name = hca_a, rdmaHcaMax = 4, selectors { deviceIDs = ["1017"] } } ]
                """.formatted(pluginDir, tuning) + recordedHostSection();
    }

    @Configuration
    public Option[] options() throws Exception {
        RecordedHost.unpack(recordedHost());
        for (String name : new String[] {"dp", "dp2"}) {
            Files.createDirectories(socketDir(name));
            try (var files = Files.list(socketDir(name))) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
        }
        return agentOptions(config(socketDir("dp"), ""));
    }

    @Test
    public void tuningAppliesInPlaceAndMovingTheDirectoryRestartsTheHost() throws Exception {
        awaitService(context, DevicePluginHost.class, WAIT);
        ServiceReference<DevicePluginHost> first = context.getServiceReference(DevicePluginHost.class);
        ConfigurationAdmin admin = context.getService(context.getServiceReference(ConfigurationAdmin.class));
        try (RawKubelet kubelet = new RawKubelet(socketDir("dp")).start()) {
            await("rdma/hca_a registered", WAIT, kubelet::registrations, () -> kubelet.registrations("rdma/hca_a") == 1);
            Path socket;          // named per agent instance: rdma-node-agent.rdma_hca_a.<instance>.sock
            try (java.nio.file.DirectoryStream<Path> found = Files.newDirectoryStream(socketDir("dp"),
                    "rdma-node-agent.rdma_hca_a.*.sock")) {
                socket = found.iterator().next();
            }
            Object inode = Files.getAttribute(socket, "unix:ino");

            writeConfig(config(socketDir("dp"), ", registrationTimeout = 3s, resyncInterval = 1s"));
            await("tuning reaches ConfigAdmin", WAIT, () -> registrationTimeout(admin),
                    () -> Long.valueOf(3000).equals(registrationTimeout(admin)));
            // Over a resync at the new interval (1 s) and SCR's queue: no registration.
            holds("no registration after a tuning edit", Duration.ofMillis(1500), kubelet::registrations,
                    () -> kubelet.registrations("rdma/hca_a") == 1);
            assertEquals("same socket", inode, Files.getAttribute(socket, "unix:ino"));
            assertEquals("same host service", first.getProperty("service.id"),
                    context.getServiceReference(DevicePluginHost.class).getProperty("service.id"));
        }
        try (RawKubelet moved = new RawKubelet(socketDir("dp2")).start()) {
            writeConfig(config(socketDir("dp2"), ", registrationTimeout = 3s, resyncInterval = 1s"));
            await("rdma/hca_a registered from the new directory", WAIT, moved::registrations,
                    () -> moved.registrations("rdma/hca_a") >= 1);
        }
    }

    private static Object registrationTimeout(ConfigurationAdmin admin) {
        try {
            var properties = admin.getConfiguration("io.rdmanode.kubelet", "?").getProperties();
            return properties == null ? null : properties.get("registrationTimeout");
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
