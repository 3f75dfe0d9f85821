// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.rdmanode.kubelet.DevicePluginHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

/**
 * The shared RDMA device plugin inside real Felix, with the shipped bundles: its pools register with a kubelet
 * double that appears after the agent started, answer Allocate with the recorded host's character devices,
 * follow a live config edit (pool changed, pool added), and register again after a kubelet restart.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class SharedDevicePluginIT extends AgentTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Inject
    BundleContext context;

    /**
     * Unix socket paths have 107 usable bytes, so the sockets live under a short temporary directory, not below a
     * deep checkout's target/. Derived from the work directory: the configuration step and the test (in the
     * framework) compute the same path.
     */
    Path pluginDir() {
        return socketDir("dp");
    }

    String config(String pools) {
        return """
                agent.http.port = 0
                kubelet { pluginDir = "%s", registration = classic }
                deviceplugin.common.hostDevRoot = "/node-dev"
                deviceplugin.shared.pools = [ %s ]
                """.formatted(pluginDir(), pools) + recordedHostSection();
    }

    @Configuration
    public Option[] options() throws Exception {
        RecordedHost.unpack(recordedHost());
        Files.createDirectories(pluginDir());
        try (var files = Files.list(pluginDir())) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        return agentOptions(config("{ name = hca_a, rdmaHcaMax = 4, selectors { deviceIDs = [\"1017\"] } }"));
    }

    @Test
    public void poolsRegisterAllocateReloadAndSurviveKubeletRestarts() throws Exception {
        awaitService(context, DevicePluginHost.class, WAIT);
        try (RawKubelet kubelet = new RawKubelet(pluginDir()).start()) {
            await("rdma/hca_a registered with 4 healthy devices", WAIT, () -> kubelet.devices("rdma/hca_a"),
                    () -> kubelet.devices("rdma/hca_a").size() == 4
                            && kubelet.devices("rdma/hca_a").stream().allMatch(d -> d.health().equals("Healthy")));
            String endpoint = kubelet.registrations().get(0).endpoint();
            assertTrue(endpoint, endpoint.matches("rdma-node-agent\\.rdma_hca_a\\.[0-9a-z]{1,8}\\.sock"));

            // Host paths under deviceplugin.common.hostDevRoot, container paths under /dev; never where the agent
            // read the devices (the recorded host's dev directory).
            List<String> paths = kubelet.allocate("rdma/hca_a", "hca_a-3");
            String ib = "/node-dev/infiniband";
            assertEquals(List.of(ib + "/uverbs0", ib + "/umad0", ib + "/issm0", ib + "/uverbs20", ib + "/umad20",
                    ib + "/issm20", ib + "/rdma_cm"), paths);
            assertEquals(List.of("/dev/infiniband/uverbs0", "/dev/infiniband/umad0", "/dev/infiniband/issm0",
                    "/dev/infiniband/uverbs20", "/dev/infiniband/umad20", "/dev/infiniband/issm20",
                    "/dev/infiniband/rdma_cm"), kubelet.allocate("rdma/hca_a", 1, "hca_a-3"));

            // Live reload: hca_a shrinks to 2 IDs, hca_b appears; both reach kubelet without a restart.
            writeConfig(config("""
                    { name = hca_a, rdmaHcaMax = 2, selectors { deviceIDs = ["1017"] } }
                    { name = hca_b, rdmaHcaMax = 3, selectors { ifNames = [ens1f0v0] } }
                    """));
            await("hca_a with 2 devices and hca_b with 3", WAIT,
                    () -> kubelet.devices("rdma/hca_a") + " " + kubelet.devices("rdma/hca_b"),
                    () -> kubelet.devices("rdma/hca_a").size() == 2 && kubelet.devices("rdma/hca_b").size() == 3);
            assertEquals(2, kubelet.registrations("rdma/hca_a"));

            for (int i = 0; i < 5; i++) {
                long before = kubelet.registrations("rdma/hca_b");
                kubelet.restart();
                Duration took = await("re-registration after kubelet restart " + (i + 1), Duration.ofSeconds(1),
                        kubelet::registrations, () -> kubelet.registrations("rdma/hca_b") > before);
                assertTrue("re-registered within 1 s: " + took, took.compareTo(Duration.ofSeconds(1)) < 0);
            }
            await("hca_b listed again after the restarts", WAIT, () -> kubelet.devices("rdma/hca_b"),
                    () -> kubelet.devices("rdma/hca_b").size() == 3);
        }
    }
}
