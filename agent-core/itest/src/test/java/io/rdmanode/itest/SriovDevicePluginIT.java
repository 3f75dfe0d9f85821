// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.rdmanode.kubelet.DevicePluginHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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

/**
 * Both device plugins inside real Felix with the shipped bundles, on the recorded ConnectX-5 host: the SR-IOV
 * pools split the 16 VFs first match wins and answer Allocate with the VF's nodes, a pool edit applies live,
 * a bad pool edit is refused naming file, line and key, and the SR-IOV bundle is replaced by a new build
 * (stop, update, one refresh, start, as the launcher does) while the shared plugin keeps answering Allocate
 * throughout and each SR-IOV pool registers once more, not twice.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class SriovDevicePluginIT extends AgentTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(15);

    @Inject
    BundleContext context;

    Path pluginDir() {
        // sun_path has 107 bytes: sockets under a short temporary directory, not below a deep checkout.
        return socketDir("dp");
    }

    String config(String sriovPools) {
        return """
                agent.http.port = 0
                kubelet { pluginDir = "%s", registration = classic }
                deviceplugin.common.hostDevRoot = "%s"
                deviceplugin.shared.pools = [ { name = hca_a, rdmaHcaMax = 4, selectors { deviceIDs = ["1017"] } } ]
                deviceplugin.sriov.pools = [
                %s
                ]
                """.formatted(pluginDir(), recordedHost().resolve("dev"), sriovPools) + recordedHostSection();
    }

    String pools(String range, String policy) {
        String devinfo = workDir().resolve("devinfo").toString();
        return """
                  { name = pf0_low, policy = %s, deviceInfoDir = "%s", selectors { pfNames = ["ens1f0#%s"] } }
                  { name = vfs, deviceInfoDir = "%s", selectors { isRdma = true } }
                """.formatted(policy, devinfo, range, devinfo);
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
        return agentOptions(config(pools("0-3", "pack")));
    }

    @Test
    public void bothPluginsServeReloadRefuseBadEditsAndSurviveAHotSwap() throws Exception {
        awaitService(context, DevicePluginHost.class, WAIT);
        try (RawKubelet kubelet = new RawKubelet(pluginDir()).start()) {
            awaitCounts(kubelet, 4, 12);
            // Each resource streams on its own: the shared pool's first list may come after the SR-IOV ones.
            await("4 hca_a devices listed", WAIT, () -> kubelet.devices("rdma/hca_a").size(),
                    () -> kubelet.devices("rdma/hca_a").size() == 4);
            List<String> paths = kubelet.allocate("rdma/pf0_low", "0000:3b:00.3");
            Path ib = recordedHost().resolve("dev/infiniband");
            assertEquals(List.of(ib + "/uverbs2", ib + "/umad2", ib + "/issm2", ib + "/rdma_cm"), paths);
            assertTrue(Files.exists(workDir().resolve("devinfo/rdma-pf0_low-0000:3b:00.3-device.json")));

            writeConfig(config(pools("0-1", "pack")));                   // live: the range shrinks
            awaitCounts(kubelet, 2, 14);

            writeConfig(config(pools("0-1", "packed")));                  // refused: not an option
            await("the bad edit rejected", WAIT, () -> safe(this::rejected), () -> safe(this::rejected)
                    .contains("packed"));
            String problems = rejected();
            assertTrue(problems, problems.contains("agent.conf:6") && problems.contains("pf0_low")
                    && problems.contains("policy"));
            assertEquals(2, kubelet.devices("rdma/pf0_low").size());

            hotSwapSriovWhileSharedServes(kubelet);
            awaitCounts(kubelet, 2, 14);
            assertEquals("shared plugin not re-registered by the swap", 1, kubelet.registrations("rdma/hca_a"));
        }
    }

    private void awaitCounts(RawKubelet kubelet, int low, int rest) throws InterruptedException {
        await(low + " + " + rest + " VFs listed", WAIT,
                () -> kubelet.devices("rdma/pf0_low").size() + " + " + kubelet.devices("rdma/vfs").size(),
                () -> kubelet.devices("rdma/pf0_low").size() == low && kubelet.devices("rdma/vfs").size() == rest);
    }

    private void hotSwapSriovWhileSharedServes(RawKubelet kubelet) throws Exception {
        Bundle sriov = installedBundle(context, "io.rdmanode.deviceplugin.sriov");
        Path newBuild = rebuiltJar("deviceplugin-sriov", "2");
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger answers = new AtomicInteger();
        AtomicBoolean polling = new AtomicBoolean(true);
        Thread poller = new Thread(() -> {
            while (polling.get()) {
                try {
                    kubelet.allocate("rdma/hca_a", "hca_a-1");
                    answers.incrementAndGet();
                } catch (Exception e) {
                    failures.incrementAndGet();
                }
            }
        }, "sriov-swap-shared-allocate");
        poller.start();
        long start = System.nanoTime();
        long lowBefore = kubelet.registrations("rdma/pf0_low");
        long vfsBefore = kubelet.registrations("rdma/vfs");
        swap(context, sriov, newBuild);
        await("the new SR-IOV build active", WAIT, () -> sriov.getHeaders().get("X-Build"),
                () -> "2".equals(sriov.getHeaders().get("X-Build")) && sriov.getState() == Bundle.ACTIVE);
        long swapMs = (System.nanoTime() - start) / 1_000_000;
        int atSwap = answers.get();
        await("a few more shared Allocates after the swap", WAIT, answers::get, () -> answers.get() >= atSwap + 5);
        polling.set(false);
        poller.join();
        System.out.println("sriov bundle swapped in " + swapMs + " ms; shared Allocate answered " + answers.get()
                + " times meanwhile, failed " + failures.get());
        assertEquals("failed shared Allocates during the swap", 0, failures.get());
        assertTrue("shared Allocate answered during the swap", answers.get() > 0);
        await("both SR-IOV pools registered again", WAIT, kubelet::registrations,
                () -> kubelet.registrations("rdma/pf0_low") > lowBefore && kubelet.registrations("rdma/vfs") > vfsBefore);
        holds("each SR-IOV pool registered once after the swap", Duration.ofSeconds(1), kubelet::registrations,
                () -> kubelet.registrations("rdma/pf0_low") == lowBefore + 1
                        && kubelet.registrations("rdma/vfs") == vfsBefore + 1);
    }

    @SuppressWarnings("unchecked")
    private String rejected() throws Exception {
        Object last = configStatus(context).get("lastRejected");
        return last instanceof Map<?, ?> m ? String.join("\n", (List<String>) m.get("problems")) : "";
    }

    private interface Call {
        String get() throws Exception;
    }

    private static String safe(Call call) {
        try {
            return call.get();
        } catch (Exception e) {
            return e.toString();
        }
    }
}
