// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.Netlink;
import io.rdmanode.netlink.RdmaNetnsMode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** setns on a dedicated thread against a real namespace (ip netns add, unique name); needs root. */
class NativeNamespacesTest {

    private static final String NS = "rdt-nl-" + ProcessHandle.current().pid();
    private static final Path PATH = Path.of("/var/run/netns", NS);

    @BeforeEach
    void create() throws Exception {
        Assumptions.assumeTrue(ip("netns", "add", NS) == 0, "needs root and iproute2");
    }

    @AfterEach
    void delete() throws Exception {
        ip("netns", "del", NS);
    }

    @Test
    void workRunsInsideTheNamespaceAndTheCallerStaysOutside() throws Exception {
        String host = Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString();
        String inside = Netlink.namespaces().callIn(PATH,
                () -> Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString());
        String netnsFile = "net:[" + Files.getAttribute(PATH, "unix:ino") + "]";

        assertThat(inside).isEqualTo(netnsFile).isNotEqualTo(host);
        assertThat(Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString()).isEqualTo(host);
        assertThat(Netlink.namespaces().exists(PATH)).isTrue();
        assertThat(Netlink.namespaces().exists(Path.of("/var/run/netns", NS + "-none"))).isFalse();
        assertThat(Netlink.namespaces().exists(Path.of("/proc/self/ns/net"))).as("the magic link").isTrue();
        assertThat(Netlink.namespaces().exists(Path.of("/proc/999999999/ns/net"))).isFalse();
        assertThat(Netlink.namespaces().exists(Path.of("/proc/self/ns/mnt"))).as("another kind").isFalse();
        assertThat(Netlink.namespaces().exists(Path.of("/proc/self/status"))).as("no namespace").isFalse();
        assertThat(Netlink.namespaces().exists(Path.of("/proc/self/ns"))).as("a directory").isFalse();
        assertThat(Netlink.namespaces().callIn(Path.of("/proc/self/ns/net"),
                () -> Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString())).isEqualTo(host);
    }

    /**
     * The kernel tags a sysfs mount with the network namespace it was mounted in: a thread that only entered the
     * namespace still reads the host's class/net, a thread with the namespace's own sysfs reads the pod's. The
     * same tagging hides an RDMA device moved into a pod (exclusive netns mode) from the host's /sys.
     */
    @Test
    void ownSysfsShowsTheNamespacesDevicesAndNothingLeaksToTheHost() throws Exception {
        String dummy = "rdtv" + ProcessHandle.current().pid() % 100000;
        assertThat(ip("-n", NS, "link", "add", dummy, "type", "veth", "peer", "name", dummy + "p")).isZero();
        String hostMounts = Files.readString(Path.of("/proc/1/mountinfo"));

        boolean inPlainThread = Netlink.namespaces().callIn(PATH, () -> Files.exists(classNet(dummy)));
        boolean inOwnSysfs = Netlink.namespaces().callInWithSysfs(PATH, () -> Files.exists(classNet(dummy)));
        String ownNetns = Netlink.namespaces().callInWithSysfs(PATH,
                () -> Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString());

        assertThat(inPlainThread).as("the host's sysfs, read from inside").isFalse();
        assertThat(inOwnSysfs).isTrue();
        assertThat(ownNetns).isEqualTo("net:[" + Files.getAttribute(PATH, "unix:ino") + "]");
        assertThat(Files.exists(classNet(dummy))).as("host view").isFalse();
        assertThat(Files.exists(classNet("lo"))).isTrue();
        assertThat(Files.readString(Path.of("/proc/1/mountinfo"))).as("no mount propagated to the host")
                .isEqualTo(hostMounts);
    }

    private static Path classNet(String dev) {
        return Path.of("/sys/class/net", dev);
    }

    @Test
    void missingNamespaceIsEnoent() {
        assertThatThrownBy(() -> Netlink.namespaces().callIn(Path.of("/var/run/netns", NS + "-none"), () -> 1))
                .isInstanceOf(NetlinkException.class)
                .satisfies(e -> assertThat(((NetlinkException) e).errno()).isEqualTo(NetlinkException.ENOENT));
    }

    @Test
    void workExceptionsComeBackUnwrapped() {
        assertThatThrownBy(() -> Netlink.namespaces().callIn(PATH, () -> {
            throw new IllegalStateException("inside");
        })).isInstanceOf(IllegalStateException.class).hasMessage("inside");
    }

    @Test
    void liveRdmaNetlinkAnswersOrExplains() {
        // This machine's kernel may lack ib_core: then the socket fails with a named errno, not a hang.
        try {
            RdmaNetnsMode m = Netlink.rdma().netnsMode();
            System.out.println("RDMA netns mode here: " + m + ", devices: " + Netlink.rdma().links());
        } catch (NetlinkException e) {
            System.out.println("RDMA netlink here: " + e.getMessage());
            assertThat(e.getMessage()).isNotBlank();
        }
    }

    private static int ip(String... args) throws Exception {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "ip";
        System.arraycopy(args, 0, cmd, 1, args.length);
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start().waitFor();
    }
}
