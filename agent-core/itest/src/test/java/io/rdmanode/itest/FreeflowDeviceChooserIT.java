// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import io.rdmanode.agent.RdmaDeviceChooser;
import io.rdmanode.health.StatusSection;
import java.io.IOException;
import java.io.InputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.namespace.PackageNamespace;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.BundleWire;
import org.osgi.framework.wiring.BundleWiring;

/**
 * The Freeflow router and the device-plugin layer's {@link RdmaDeviceChooser} with the shipped bundles in real
 * Felix (issue 25). The freeflow bundle has no package wire to the device-plugin or discovery bundles, so the
 * refresh of a swap of either cannot reach it (a refresh restarts the refreshed bundles' importers, and only them);
 * replacing the device-plugin bundle by a new build (stop, update, start: its layer and chooser services go and come
 * back, from the new revision) leaves the freeflow bundle's revision, its component, its socket and a client's
 * objects as they were; and a router configured with {@code deviceSelectors} then asks the new revision's chooser
 * for its device through the platform API. The refresh itself is not done here: this test's own probe bundle imports
 * the device-plugin packages (other ITs of the module use them), so it would restart the test.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class FreeflowDeviceChooserIT extends AgentTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int ALLOC_PD = 5;

    @Inject
    BundleContext context;

    Path routerDir() {
        return socketDir("ff");
    }

    String config(String freeflowExtra) {
        return """
                agent.http.port = 0
                freeflow { socketDir = "%s", shmDir = "%s", %s }
                """.formatted(routerDir(), routerDir().resolve("shm"), freeflowExtra) + recordedHostSection();
    }

    @Configuration
    public Option[] options() throws Exception {
        RecordedHost.unpack(recordedHost());
        Files.createDirectories(routerDir().resolve("shm"));
        return agentOptions(config("transport = software"));
    }

    @Test
    public void swappingTheDevicePluginBundleLeavesTheRouterItsTenantAndItsObjects() throws Exception {
        ServiceReference<RdmaDeviceChooser> before = awaitChooser(null);
        Path socket = routerDir().resolve("ffrouter");
        await("the router's socket", WAIT, () -> "absent", () -> Files.exists(socket));
        Bundle freeflow = installedBundle(context, "io.rdmanode.freeflow");
        BundleRevision revision = freeflow.adapt(BundleRevision.class);
        Object service = freeflowSection().getProperty("service.id");
        Object inode = Files.getAttribute(socket, "unix:ino");
        int pd = allocPd(socket);
        assertTrue("a PD handle", pd > 0);
        assertEquals(1, tenant().get("pds"));

        Bundle layer = installedBundle(context, "io.rdmanode.deviceplugin");
        Bundle discovery = installedBundle(context, "io.rdmanode.discovery");
        for (BundleWire wire : freeflow.adapt(BundleWiring.class).getRequiredWires(PackageNamespace.PACKAGE_NAMESPACE)) {
            Bundle provider = wire.getProvider().getBundle();
            assertTrue("freeflow wired to " + provider.getSymbolicName() + " for " + wire.getCapability().getAttributes(),
                    provider != layer && provider != discovery);
        }
        Path newBuild = rebuiltJar("deviceplugin.", "2");
        layer.stop(Bundle.STOP_TRANSIENT);
        try (InputStream in = Files.newInputStream(newBuild)) {
            layer.update(in);
        }
        layer.start();
        ServiceReference<RdmaDeviceChooser> after = awaitChooser(before);

        assertEquals("the layer's new revision", "2", layer.getHeaders().get("X-Build"));
        assertNotEquals(before.getProperty("service.id"), after.getProperty("service.id"));
        assertSame("the freeflow bundle was not refreshed", revision, freeflow.adapt(BundleRevision.class));
        assertEquals("the freeflow component was not reactivated", service,
                freeflowSection().getProperty("service.id"));
        assertEquals("the same socket file", inode, Files.getAttribute(socket, "unix:ino"));
        assertEquals("the tenant keeps its PD", 1, tenant().get("pds"));
        assertTrue("and gets another", allocPd(socket) > pd);
        assertEquals(2, tenant().get("pds"));

        // Selectors now: the router restarts (a new identity) and asks the layer's new chooser, which picks the
        // recorded host's ens2f0 HCA; there is no such device to open on a build host, and the router says so.
        writeConfig(config("transport = verbs, deviceSelectors { ifNames = [ens2f0] }"));
        await("the router waits, naming the device the layer chose", WAIT, this::freeflowStatus,
                () -> String.valueOf(freeflowStatus().get("problem"))
                        .contains("on RDMA device mlx5_9 (chosen by freeflow.deviceSelectors)"));
        assertEquals("waiting", freeflowStatus().get("router"));
        assertEquals(Map.of("ifNames", List.of("ens2f0")), freeflowStatus().get("deviceSelectors"));
    }

    /** The chooser registered now, once it is not {@code previous} (the layer's old revision's). */
    private ServiceReference<RdmaDeviceChooser> awaitChooser(ServiceReference<RdmaDeviceChooser> previous)
            throws InterruptedException {
        await("the layer's RdmaDeviceChooser", WAIT, () -> "none", () -> {
            ServiceReference<RdmaDeviceChooser> r = context.getServiceReference(RdmaDeviceChooser.class);
            return r != null && !r.equals(previous);
        });
        return context.getServiceReference(RdmaDeviceChooser.class);
    }

    private ServiceReference<StatusSection> freeflowSection() throws Exception {
        for (ServiceReference<StatusSection> ref : context.getServiceReferences(StatusSection.class, null)) {
            StatusSection section = context.getService(ref);
            try {
                if (section != null && "freeflow".equals(section.name())) {
                    return ref;
                }
            } finally {
                context.ungetService(ref);
            }
        }
        throw new AssertionError("no StatusSection named freeflow");
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> freeflowStatus() {
        try {
            ServiceReference<StatusSection> ref = freeflowSection();
            try {
                return (Map<String, Object>) context.getService(ref).status();
            } finally {
                context.ungetService(ref);
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> tenant() {
        List<Map<String, Object>> tenants = (List<Map<String, Object>>) freeflowStatus().get("tenants");
        assertEquals("one tenant (this JVM)", 1, tenants.size());
        return tenants.get(0);
    }

    /** One ALLOC_PD on its own connection, as the genuine client sends it: {client id, func, body size}, LE. */
    private static int allocPd(Path socket) throws IOException {
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            ByteBuffer header = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(7).putInt(ALLOC_PD)
                    .putInt(0).flip();
            while (header.hasRemaining()) {
                ch.write(header);
            }
            ByteBuffer answer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            while (answer.hasRemaining()) {
                if (ch.read(answer) < 0) {
                    throw new IOException("router closed the connection");
                }
            }
            return answer.getInt(0);
        }
    }
}
