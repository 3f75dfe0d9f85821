// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import io.rdmanode.netlink.NetworkNamespaces;
import io.rdmanode.posix.Pipe;
import io.rdmanode.posix.Posix;
import io.rdmanode.verbs.RdmaVerbs;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
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
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.wiring.BundleWire;
import org.osgi.framework.wiring.BundleWiring;

/**
 * The one native layer in the shipped bundle set (issue 19 §4): only the posix bundle carries jnr-ffi, and every
 * user of native code reaches it through that bundle on a real Felix: libc from a test bundle, setns through the
 * netlink bundle, libibverbs bound by the verbs bundle with the posix bundle's jnr-ffi (jnr generates its class in
 * a loader under verbs' own), and the Freeflow router's control socket (accept4, SO_PEERCRED, recvmsg, sendmsg).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class NativeLayerIT extends AgentTestSupport {

    private static final String POSIX = "io.rdmanode.posix";

    @Inject
    BundleContext context;

    @Configuration
    public Option[] config() throws IOException {
        Path shm = workDir().resolve("shm");
        Files.createDirectories(shm);
        Files.createDirectories(socketDir("ff"));
        return agentOptions("agent.http.port = 0\n" + recordedHostDiscovery() + """
                freeflow {
                  socketDir = "%s"
                  routerName = ffr
                  shmDir = "%s"
                }
                """.formatted(socketDir("ff"), shm));
    }

    @Test
    public void onlyThePosixBundleCarriesJnrAndVerbsWiresToIt() {
        List<String> carriers = new ArrayList<>();
        Bundle verbs = null;
        for (Bundle b : context.getBundles()) {
            String classPath = b.getHeaders().get("Bundle-ClassPath");
            if (classPath != null && classPath.contains("jnr-ffi")) {
                carriers.add(b.getSymbolicName());
            }
            if ("io.rdmanode.verbs".equals(b.getSymbolicName())) {
                verbs = b;
            }
        }
        assertEquals(List.of(POSIX), carriers);
        List<String> jnrProviders = new ArrayList<>();
        for (BundleWire w : verbs.adapt(BundleWiring.class).getRequiredWires("osgi.wiring.package")) {
            String pkg = (String) w.getCapability().getAttributes().get("osgi.wiring.package");
            if (pkg.startsWith("jnr.") || pkg.startsWith("com.kenai.")) {
                jnrProviders.add(pkg + " <- " + w.getProvider().getSymbolicName());
            }
        }
        assertTrue("verbs imports jnr-ffi: " + jnrProviders, jnrProviders.contains("jnr.ffi <- " + POSIX));
        assertTrue(jnrProviders.toString(), jnrProviders.stream().allMatch(p -> p.endsWith(" <- " + POSIX)));
    }

    @Test
    public void libcAnswersThroughThePosixBundle() {
        Posix posix = Posix.libc();
        Pipe pipe = posix.pipe2(Posix.O_CLOEXEC);
        try {
            posix.write(pipe.writeFd(), new byte[] {1, 2, 3}, 3);
            byte[] got = new byte[3];
            assertEquals(3, posix.read(pipe.readFd(), got, 3));
            assertArrayEquals(new byte[] {1, 2, 3}, got);
        } finally {
            posix.close(pipe.readFd());
            posix.close(pipe.writeFd());
        }
    }

    /**
     * jffi's JNI stub is mapped from the posix bundle's data area (in the framework cache), where the bundle copied it
     * once, not from a fresh copy in {@code java.io.tmpdir}: a {@code noexec} {@code /tmp} could not load that one.
     */
    @Test
    public void jffisStubIsLoadedFromThePosixBundlesDataArea() throws IOException {
        Posix.libc();
        Bundle posix = null;
        for (Bundle b : context.getBundles()) {
            if (POSIX.equals(b.getSymbolicName())) {
                posix = b;
            }
        }
        assertTrue("posix bundle installed", posix != null && posix.getBundleContext() != null);
        Path area = posix.getBundleContext().getDataFile("jffi").toPath();
        List<String> jffi = Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(line -> line.contains("jffi") && line.endsWith(".so")).map(line -> line.replaceAll(".* ", ""))
                .distinct().toList();
        assertTrue("jffi's stub mapped from " + jffi + ", not from " + area + " (jffi.boot.library.path="
                + System.getProperty("jffi.boot.library.path") + ")", !jffi.isEmpty() && Files.isDirectory(area)
                && jffi.stream().allMatch(p -> Path.of(p).startsWith(toReal(area))));
    }

    private static Path toReal(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p;
        }
    }

    @Test
    public void netlinkEntersANamespaceThroughPosix() throws Exception {
        NetworkNamespaces ns = awaitService(context, NetworkNamespaces.class, Duration.ofSeconds(10));
        String own = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        String inside = ns.callIn(Path.of("/proc/self/ns/net"),
                () -> Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString());
        assertEquals(own, inside);
    }

    @Test
    public void verbsBindsLibibverbsWithThePosixBundlesJnr() throws Exception {
        RdmaVerbs verbs = awaitService(context, RdmaVerbs.class, Duration.ofSeconds(10));
        assumeTrue("libibverbs.so.1 is not installed here", Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1"))
                || Files.exists(Path.of("/lib/x86_64-linux-gnu/libibverbs.so.1")));
        assertEquals("libibverbs loaded", java.util.Optional.empty(), verbs.unavailableReason());
        // ibv_get_device_list through the generated class: empty on a host without RDMA devices, never a failure.
        assertTrue(verbs.deviceNames().size() >= 0);
    }

    @Test
    public void freeflowRouterServesItsControlSocketThroughPosix() throws Exception {
        Path socket = socketDir("ff").resolve("ffr");
        await("the Freeflow control socket", Duration.ofSeconds(10), () -> socket, () -> Files.exists(socket));
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            // ALLOC_PD (function 5) with no body: the answer is the new protection domain's handle.
            ByteBuffer header = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 7).putInt(4, 5)
                    .putInt(8, 0);
            while (header.hasRemaining()) {
                ch.write(header);
            }
            ByteBuffer rsp = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            while (rsp.hasRemaining()) {
                assertTrue("router closed the connection", ch.read(rsp) >= 0);
            }
            assertTrue("a protection domain handle: " + rsp.getInt(0), rsp.getInt(0) > 0);
        }
    }
}
