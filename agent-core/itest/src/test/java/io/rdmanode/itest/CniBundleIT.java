// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.rdmanode.cni.PodAttachments;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;

/**
 * The shipped bundle-cni in the framework with the shipped netlink, discovery and Jackson bundles: a `cni`
 * section starts it, it installs the executable and serves its socket, and runtime calls through the executable
 * reach discovery (STATUS) and RDMA netlink (ADD's netns-mode check, which fails precisely on a host without
 * ib_core).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class CniBundleIT extends AgentTestSupport {

    @Inject
    BundleContext context;

    // Short (socket paths have 107 bytes) and the same in the driver and in the framework, where this class is
    // loaded again: one JVM, so the pid names it.
    private static final Path ROOT = Path.of("/tmp", "rdt-cni-it-" + ProcessHandle.current().pid());

    @Configuration
    public Option[] config() {
        return agentOptions("agent.http.port = 0\n" + recordedHostDiscovery() + """
                cni {
                  binDir = "%s/bin"
                  socket = "%s/cni.sock"
                  stateDir = "%s/state"
                }
                """.formatted(ROOT, ROOT, ROOT));
    }

    @Test
    public void executableReachesTheAgentThroughTheShippedBundles() throws Exception {
        PodAttachments attachments = awaitService(context, PodAttachments.class, Duration.ofSeconds(20));
        assertTrue(attachments.attachments().isEmpty());
        Path client = ROOT.resolve("bin/rdma");
        assertTrue(Files.isExecutable(client));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(ROOT.resolve("cni.sock"))));

        String version = run(client, Map.of("CNI_COMMAND", "VERSION"), "{\"cniVersion\":\"1.1.0\"}");
        assertTrue(version, version.startsWith("0\n") && version.contains("\"supportedVersions\":[\"1.0.0\",\"1.1.0\"]"));
        // A VF of the recorded ConnectX-5 host; this machine's kernel has no RDMA netlink, so ADD stops at the
        // netns-mode check with its own code, and nothing is persisted. The namespace is a container's, as a
        // runtime's would be: the agent refuses its own (the host's).
        Process container = new ProcessBuilder("unshare", "--net", "sleep", "300").start();
        String add;
        try {
            Path netns = Path.of("/proc/" + container.pid() + "/ns/net");
            String host = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (Files.readSymbolicLink(netns).toString().equals(host) && System.nanoTime() < until) {
                Thread.sleep(10);                     // unshare(2) not called yet
            }
            add = run(client, Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "c1", "CNI_IFNAME", "net1",
                    "CNI_NETNS", netns.toString(), "CNI_PATH", "/opt/cni/bin"),
                    "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"rdma\",\"deviceID\":\"0000:3b:00.2\",\"prevResult\":{}}");
        } finally {
            container.destroyForcibly();
        }
        assertTrue(add, add.startsWith("1\n") && (add.contains("\"code\" : 101") || add.contains("\"code\" : 102")));
        // CNI 1.1: STATUS fails while ADD cannot succeed. Discovery on the recorded host is healthy, so STATUS
        // and ADD agree on the kernel: where ADD stopped at the netns mode (101), STATUS says so with 50.
        String status = run(client, Map.of("CNI_COMMAND", "STATUS", "CNI_PATH", "/opt/cni/bin"),
                "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"type\":\"rdma\"}");
        if (add.contains("\"code\" : 101")) {
            assertTrue(status, status.startsWith("1\n") && status.contains("\"code\" : 50")
                    && status.contains("netns mode"));
        } else {
            assertEquals("ready: discovery healthy and the netns mode exclusive", "0\n", status);
        }
        try (var files = Files.list(ROOT.resolve("state"))) {
            assertEquals(0, files.count());
        }
        podSeriesFollowTheCniBundle();
    }

    /**
     * Part of the test above (Pax Exam runs the class's @AfterClass, which removes ROOT, after each method).
     * The metrics bundle reads the series of RDMA devices in pods through the CNI plugin's placements and the
     * netlink bundle's namespace switch, both imported dynamically: the pod reader is bound while bundle-cni
     * runs, goes with it (the host's series stay) and comes back when it is started again (hot swap).
     */
    private void podSeriesFollowTheCniBundle() throws Exception {
        awaitService(context, PodAttachments.class, Duration.ofSeconds(20));
        String url = metricsUrl(context);
        String pods = "rdma_agent_infiniband_pod_devices 0.0";
        String host = "rdma_agent_infiniband_state_id{device=\"mlx5_0\",port=\"1\"} 4.0";
        await("pod series on " + url, Duration.ofSeconds(10), () -> scrape(url, null),
                () -> scrape(url, null).contains(pods) && scrape(url, null).contains(host));

        var cni = installedBundle(context, "io.rdmanode.cni");
        cni.stop();
        await("pod series gone with bundle-cni", Duration.ofSeconds(10), () -> scrape(url, null),
                () -> !scrape(url, null).contains("rdma_agent_infiniband_pod_devices"));
        assertTrue(scrape(url, null).contains(host));
        cni.start();
        await("pod series back", Duration.ofSeconds(10), () -> scrape(url, null),
                () -> scrape(url, null).contains(pods));
    }

    @org.junit.AfterClass
    public static void removeRoot() throws Exception {
        if (Files.exists(ROOT)) {
            try (var walk = Files.walk(ROOT)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** "exit code\n" + stdout. */
    private static String run(Path client, Map<String, String> env, String stdin) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(client.toString());
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return p.waitFor() + "\n" + out;
    }
}
