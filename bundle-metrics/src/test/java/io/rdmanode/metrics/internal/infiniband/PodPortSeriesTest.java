// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.cni.PodAttachment;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.netlink.Netlink;
import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.NetworkNamespaces;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The series of an RDMA device moved into a pod. The recorded ConnectX-5 plays both sides: the host's tree no
 * longer lists the VF's device {@code mlx5_4} (exclusive netns mode hides it), and the pod's sysfs view lists
 * only it. The namespace switch is a stand-in that runs the work in place, except in the last test, which goes
 * through a real network namespace with its own sysfs mount.
 */
class PodPortSeriesTest {

    private static final String MOVED = "mlx5_4";

    @TempDir
    Path dir;
    private RecordedHostDiscovery host;
    private Path podSys;
    private final List<PodAttachment> attachments = new ArrayList<>();

    @BeforeEach
    void hosts() throws IOException {
        host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir.resolve("host"));
        Files.delete(dir.resolve("host/sys/class/infiniband/" + MOVED));
        host.rescan();
        podSys = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir.resolve("pod")).dir().resolve("sys");
        try (Stream<Path> others = Files.list(podSys.resolve("class/infiniband"))) {
            for (Path p : others.filter(p -> !p.getFileName().toString().equals(MOVED)).toList()) {
                Files.delete(p);
            }
        }
    }

    private static PodAttachment attachment(String netns, String podNamespace, String podName) {
        return new PodAttachment("rdma-net", "c-" + podName, "net1", netns, podNamespace, podName, "0000:3b:00.5",
                MOVED, Instant.EPOCH);
    }

    private String scrape(NetworkNamespaces namespaces, Path sysInPod) throws IOException {
        PodPortSeries pods = new PodPortSeries(() -> attachments, namespaces, host, sysInPod, name -> true, true);
        InfinibandPortCollector collector = new InfinibandPortCollector(host::snapshot,
                host.counters(), "", "", true);
        return InfinibandPortCollectorTest.render(collector.collect(pods.read()));
    }

    @Test
    void aDeviceInAPodCarriesThePodAndJoinsTheHostsFamilies() throws IOException {
        attachments.add(attachment(dir.toString(), "team-a", "trainer-0"));

        String text = scrape(new InPlace(), podSys);

        String pod = "device=\"mlx5_4\",pod_name=\"trainer-0\",pod_namespace=\"team-a\",port=\"1\"";
        assertThat(text)
                .contains("rdma_agent_infiniband_port_data_received_bytes_total{" + pod + "} 4000016.0")
                .contains("rdma_agent_infiniband_state_id{" + pod + "} 4.0")
                .contains("rdma_agent_infiniband_out_of_sequence_packets_received_total{" + pod + "} 5008.0")
                .contains("rdma_agent_infiniband_info{board_id=\"MT_0000000012\",device=\"mlx5_4\","
                        + "firmware_version=\"16.35.2000\",hca_type=\"MT4119\",pod_name=\"trainer-0\","
                        + "pod_namespace=\"team-a\"} 1")
                .contains("rdma_agent_infiniband_port_data_received_bytes_total{device=\"mlx5_0\",port=\"1\"}")
                .contains("rdma_agent_infiniband_pod_devices 1.0")
                .contains("rdma_agent_infiniband_pod_read_errors_total 0.0")
                .doesNotContain("{device=\"mlx5_4\",port=\"1\"}");
        assertThat(text.lines().filter(l -> l.startsWith("# TYPE rdma_agent_infiniband_port_data_received_bytes"))
                .count()).as("one family, host and pod points together").isEqualTo(1);
    }

    @Test
    void aPodWhoseNamespaceIsGoneIsLeftOutAndCountedAndTheHostStays() throws IOException {
        attachments.add(attachment(dir.resolve("no-such-netns").toString(), "team-a", "gone-0"));

        String first = scrape(new InPlace(), podSys);
        String second = scrape(new InPlace(), podSys);

        assertThat(second).doesNotContain("gone-0")
                .contains("rdma_agent_infiniband_pod_devices 0.0")
                .contains("rdma_agent_infiniband_port_data_received_bytes_total{device=\"mlx5_0\",port=\"1\"}");
        assertThat(first).contains("rdma_agent_infiniband_pod_read_errors_total 1.0");
    }

    /**
     * The production path: a real network namespace entered on its own thread with its own sysfs over /sys.
     * It holds no RDMA device here (this kernel has no RDMA), so nothing of it is read, and nothing fails.
     */
    @Test
    void aRealNamespaceIsReadThroughItsOwnSysfs() throws Exception {
        String ns = "rdt-pps-" + ProcessHandle.current().pid();
        Assumptions.assumeTrue(ip("netns", "add", ns) == 0, "needs root and iproute2");
        try {
            attachments.add(attachment("/var/run/netns/" + ns, "team-b", "real-0"));
            String mounts = Files.readString(Path.of("/proc/1/mountinfo"));

            String text = scrape(Netlink.namespaces(), Path.of("/sys"));

            assertThat(text).contains("rdma_agent_infiniband_pod_devices 0.0")
                    .contains("rdma_agent_infiniband_pod_read_errors_total 0.0").doesNotContain("real-0");
            assertThat(Files.readString(Path.of("/proc/1/mountinfo"))).isEqualTo(mounts);
        } finally {
            ip("netns", "del", ns);
        }
    }

    /** Runs the work on the caller's thread; a namespace path that does not exist fails as setns would. */
    private static final class InPlace implements NetworkNamespaces {
        @Override
        public <T> T callIn(Path netns, Callable<T> work) throws Exception {
            if (!Files.exists(netns)) {
                throw new NetlinkException("open " + netns + ": No such file or directory (ENOENT)",
                        NetlinkException.ENOENT);
            }
            return work.call();
        }

        @Override
        public <T> T callInWithSysfs(Path netns, Callable<T> work) throws Exception {
            return callIn(netns, work);
        }

        @Override
        public boolean exists(Path netns) {
            return Files.exists(netns);
        }
    }

    private static int ip(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start().waitFor();
    }
}
