// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.testing.SysfsTree;
import io.rdmanode.netlink.Netlink;
import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.RdmaLink;
import io.rdmanode.netlink.RdmaNetlink;
import io.rdmanode.netlink.RdmaNetnsMode;
import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Runs inside the Soft-RoCE VM (CniSoftRoceIT starts it, with a PCI NIC that has no peer): Soft-RoCE rxe0 on
 * that NIC's netdev, the agent's CNI component exactly as the agent runs it (the real RDMA netlink and
 * namespace code, discovery's real sysfs scan, the installed C client on its socket), then ADDs through the
 * client (env + stdin) with deviceID = the NIC's PCI address: in shared mode (refused, naming how to switch),
 * and in exclusive mode set through RDMA netlink (the kernel refuses to move rxe0: EOPNOTSUPP). Prints
 * key=value lines; the host side asserts.
 */
public final class CniVmProbe {

    private static final ObjectMapper JSON = new ObjectMapper();

    private CniVmProbe() {
    }

    public static void main(String[] args) throws Exception {
        out("modprobe", run("modprobe", "-a", "vmxnet3", "rdma_rxe", "ib_uverbs"));
        String[] nic = awaitPciNetdev();
        out("nic", nic[0]);
        out("nic.pci", nic[1]);
        out("link.up", run("ip", "link", "set", nic[0], "up"));
        out("rxe.add", run("rdma", "link", "add", "rxe0", "type", "rxe", "netdev", nic[0]));

        SysfsTree sysfs = SysfsTree.of(Path.of("/"), () -> NetnsMode.unknown("not read by the probe")); // /sys, /dev
        RdmaDiscovery discovery = new RdmaDiscovery() {
            @Override
            public HostSnapshot snapshot() {
                return sysfs.scan();
            }

            @Override
            public HostSnapshot rescan() {
                return sysfs.scan();
            }

            @Override
            public Optional<RdmaDevice> readDevice(Path sys, String name) {
                return sysfs.readDevice(sys, name);
            }

            @Override
            public io.rdmanode.discovery.RdmaCounters counters() {
                return sysfs.counters();
            }

            @Override
            public io.rdmanode.discovery.RdmaCounters counters(Path sys) {
                return sysfs.counters(sys);
            }

            @Override
            public void addListener(RdmaTopologyListener listener) {
            }

            @Override
            public void removeListener(RdmaTopologyListener listener) {
            }
        };
        out("discovered.rxe0.parent", discovery.snapshot().device("rxe0").flatMap(d -> d.parentNetdev()).orElse("-"));
        out("discovered.rxe0.parentPci", discovery.snapshot().device("rxe0").flatMap(d -> d.parentPciFunction())
                .map(PciAddress::toString).orElse("-"));

        Path root = Files.createTempDirectory(Path.of("/tmp"), "rdt-vm-");
        RdmaNetlink rdma = Netlink.rdma();
        CniComponent component = new CniComponent(TestAgent.config(root), discovery, rdma, Netlink.namespaces(), null, null);
        Path client = root.resolve("bin/rdma");
        out("client.installed", Files.isExecutable(client));
        out("mode.initial", rdma.netnsMode());

        out("netns.pod1", run("ip", "netns", "add", "pod1"));
        add("shared", client, "pod1", nic[1], root);
        out("netns.pod1.del", run("ip", "netns", "del", "pod1"));

        // The kernel tears a deleted namespace down asynchronously (cleanup_net): EBUSY until it is gone.
        String[] set = {""};
        try {
            Awaitility.await("exclusive netns mode").atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> (set[0] = attempt(() -> rdma.setNetnsMode(RdmaNetnsMode.EXCLUSIVE))).equals("ok"));
        } catch (ConditionTimeoutException stillBusy) {
            // reported as the last answer below
        }
        out("set.exclusive", set[0]);
        out("mode.after.set", rdma.netnsMode());

        out("netns.pod2", run("ip", "netns", "add", "pod2"));
        add("exclusive", client, "pod2", nic[1], root);
        out("exclusive.rxe0.in.host", rdma.links().stream().anyMatch(l -> l.name().equals("rxe0")));
        out("exclusive.rxe0.in.pod", rdma.linksIn(Path.of("/var/run/netns/pod2")).stream().map(RdmaLink::name)
                .anyMatch("rxe0"::equals));
        // STATUS: ready, since discovery's real sysfs scan works.
        Netns.Exec status = Netns.exec(client, env("STATUS", "pod2"), conf(nic[1]).replace("1.0.0", "1.1.0"));
        out("status.exit", status.exit());
        Netns.Exec del = Netns.exec(client, env("DEL", "pod2"), conf(nic[1]));
        out("exclusive.del.exit", del.exit());
        component.stop();
        out("done", true);
    }

    private static void add(String label, Path client, String pod, String pci, Path root) throws Exception {
        Netns.Exec e = Netns.exec(client, env("ADD", pod), conf(pci));
        System.out.println("# " + label + " ADD output: " + e.stdout().replaceAll("\\s+", " "));
        out(label + ".add.exit", e.exit());
        JsonNode r = e.stdout().isBlank() ? JSON.createObjectNode() : JSON.readTree(e.stdout());
        out(label + ".add.code", r.path("code").asInt());
        out(label + ".add.msg", r.path("msg").asText().replace('\n', ' '));
        out(label + ".add.details", r.path("details").asText());
        try (Stream<Path> files = Files.list(root.resolve("state"))) {
            out(label + ".state.files", files.count());
        }
    }

    private static Map<String, String> env(String command, String pod) {
        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", "vm-" + pod);
        env.put("CNI_IFNAME", "net1");
        env.put("CNI_NETNS", "/var/run/netns/" + pod);
        env.put("CNI_PATH", "/opt/cni/bin");
        env.put("CNI_ARGS", "IgnoreUnknown=1;K8S_POD_NAMESPACE=vm;K8S_POD_NAME=" + pod);
        return env;
    }

    private static String conf(String pci) {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"rdma-vm\",\"type\":\"rdma\",\"runtimeConfig\":{\"deviceID\":\""
                + pci + "\"},\"prevResult\":{}}";
    }

    /** The netdev of the VM's PCI NIC (its {@code device} link names a PCI function), once its driver is up. */
    private static String[] awaitPciNetdev() throws Exception {
        try {
            return Awaitility.await("a netdev on a PCI function").atMost(Duration.ofSeconds(20))
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100))
                    .until(CniVmProbe::pciNetdev, Optional::isPresent).get();
        } catch (ConditionTimeoutException none) {
            throw new IllegalStateException("no netdev on a PCI function (qemu without -device vmxnet3?)");
        }
    }

    private static Optional<String[]> pciNetdev() throws Exception {
        try (Stream<Path> nets = Files.list(Path.of("/sys/class/net"))) {
            for (Path n : nets.toList()) {
                Path device = n.resolve("device");
                if (Files.isSymbolicLink(device)) {
                    String name = Files.readSymbolicLink(device).getFileName().toString();
                    Optional<PciAddress> a = PciAddress.parse(name);
                    if (a.isPresent()) {
                        return Optional.of(new String[] {n.getFileName().toString(), a.get().toString()});
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static String attempt(Runnable r) {
        try {
            r.run();
            return "ok";
        } catch (NetlinkException e) {
            System.out.println("# " + e.getMessage());
            return NetlinkException.errnoName(e.errno());
        }
    }

    private static int run(String... cmd) throws Exception {
        return new ProcessBuilder(cmd).inheritIO().start().waitFor();
    }

    private static void out(String key, Object value) {
        System.out.println(key + "=" + value);
    }
}
