// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.netlink.testing.SoftRoceVm;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The verbs backend on a real kernel RDMA stack: boots the Soft-RoCE testbed VM once (Debian's kernel, rxe,
 * rdma-core, JRE 17; {@code ../shared/testbed/README.md}), runs {@link VerbsVmProbe} there on this build's
 * classes and the jnr jars, and checks that verbs and sysfs describe rxe0 and rxe1 alike. Skips, saying
 * why, when the testbed scripts or qemu are missing. The VM takes both cores of a small machine for 30-60 s,
 * so it runs only when asked: environment {@code CI} set (as {@code .ci/run} does) or
 * {@code -Drdma.testbed.vm=true}. {@code -Drdma.testbed=DIR} points at another testbed checkout.
 */
class VerbsSoftRoceIT {

    private static final String PROBE = VerbsVmProbe.class.getName();

    @Test
    void verbsAndSysfsAgreeOnRealSoftRoceDevices() throws IOException, InterruptedException {
        Map<String, String> out = runProbeInTheVm();

        assertThat(out).containsEntry("done", "true");
        assertThat(out).containsEntry("before.available", "false")
                .containsEntry("before.reason", VerbsTopologySource.NO_DEVICE);
        assertThat(out).containsEntry("rxe-setup.exit", "0").containsEntry("verbs.available", "true");
        assertThat(out.get("verbs.devices")).isEqualTo("rxe0,rxe1").isEqualTo(out.get("sysfs.devices"));
        assertThat(out).doesNotContainKeys("verbs.problem", "sysfs.problem", "raw.failure.rxe0");
        for (String dev : List.of("rxe0", "rxe1")) {
            String port = dev + ".port.1";
            assertThat(out.get("verbs." + port)).startsWith("state=ACTIVE phys=LINK_UP layer=ETHERNET rate=")
                    .isEqualTo(out.get("sysfs." + port));
            String gids = out.get("verbs." + port + ".gids");
            assertThat(gids).isEqualTo(out.get("sysfs." + port + ".gids")).startsWith("0=fe80:");
            for (String gid : gids.split(";")) {
                assertThat(gid).as("GID type and netdev from verbs").matches("\\d+=[0-9a-f:]{39}/ROCE_V2/tb\\d");
            }
            assertThat(out.get("legacy." + port + ".gids")).as("ibv_query_gid path")
                    .isEqualTo(gids.replaceAll("/ROCE_V2/tb\\d", ""));
            assertThat(out.get("verbs." + dev + ".node_guid")).isEqualTo(out.get("sysfs." + dev + ".node_guid"))
                    .isEqualTo(out.get("raw." + dev + ".sys_image_guid"));
            assertThat(out.get("verbs." + dev + ".uverbs")).isEqualTo(out.get("sysfs." + dev + ".uverbs"));
            assertThat(out).containsEntry("raw." + dev + ".vendor_id", "0xffffff")
                    .containsEntry("raw." + dev + ".phys_port_cnt", "1")
                    .containsEntry("verbs." + dev + ".fw_ver", "0.0.0");
            assertThat(Integer.parseInt(out.get("raw." + port + ".gid_tbl_len"))).isGreaterThan(1);
            assertThat(Integer.parseInt(out.get("raw." + dev + ".max_qp"))).isPositive();
        }
        assertThat(out.get("verbs.rxe0.port.1.gids")).as("IPv4 address as a second GID")
                .contains(";1=0000:0000:0000:0000:0000:ffff:c000:0201/ROCE_V2/tb0");
        assertThat(out.get("down.verbs.rxe1.port.1")).startsWith("state=DOWN phys=DISABLED layer=ETHERNET")
                .isEqualTo(out.get("down.sysfs.rxe1.port.1"));
        assertThat(out.get("down.verbs.rxe0.port.1")).startsWith("state=DOWN ")
                .isEqualTo(out.get("down.sysfs.rxe0.port.1"));
        assertThat(out.get("down.verbs.rxe1.port.1.gids")).isEqualTo(out.get("down.sysfs.rxe1.port.1.gids"));
        assertThat(Integer.parseInt(out.get("down.update.opens"))).as("incremental update re-opened both")
                .isGreaterThanOrEqualTo(2);
        assertThat(out).as("an update that changed no device opens none")
                .containsEntry("idle.update.opens", "0").containsEntry("idle.update.devices", "2");
        assertThat(out).containsEntry("open.uverbs.fds", "0");
        // Verbs async events (issue #8 item 9): one context per device while listened to, closed afterwards;
        // rxe1's port change reaches a discovery listener through PORT_ACTIVE / PORT_ERR alone.
        assertThat(out).containsEntry("events.devices", "rxe0,rxe1").containsEntry("events.open.uverbs.fds", "2")
                .containsEntry("events.closed.uverbs.fds", "0");
        assertThat(out).containsEntry("events.up.rxe1.port.1", "ACTIVE").containsEntry("events.down.rxe1.port.1", "DOWN");
        assertThat(out.get("events.up.received")).contains("rxe1 port 1 PORT_ACTIVE");
        assertThat(out.get("events.down.received")).contains("rxe1 port 1 PORT_ERR");
        assertThat(out).as("no uevent/rtnetlink source in this engine").containsEntry("events.kernel.events", "0");
        for (String round : List.of("", "2", "3")) {
            assertThat(out).containsEntry("events.up" + round + ".rxe1.port.1", "ACTIVE")
                    .containsEntry("events.down" + round + ".rxe1.port.1", "DOWN");
            System.out.printf("verbs async event -> discovery listener, round %s: up %s ms after starting ip (%s ms"
                    + " after the event), down %s ms (%s ms)%n", round.isEmpty() ? "1" : round,
                    out.get("events.up" + round + ".ms.from.ip"), out.get("events.up" + round + ".ms.from.event"),
                    out.get("events.down" + round + ".ms.from.ip"), out.get("events.down" + round + ".ms.from.event"));
        }
        // RDMA netlink (RDMA_NLDEV_CMD_SYS_GET) against the real kernel, in both modes.
        assertThat(out).containsEntry("netns.default", "SHARED").containsEntry("netns.after.exclusive", "EXCLUSIVE")
                .containsEntry("netns.after.shared", "SHARED");
    }

    private static Map<String, String> runProbeInTheVm() throws IOException, InterruptedException {
        Path runInVm = SoftRoceVm.runInVm();
        SoftRoceVm.assumeQemu();
        Path target = Path.of("").toAbsolutePath().resolve("target");
        Assumptions.assumeTrue(Files.isDirectory(target.resolve("vm-jnr")), "no " + target.resolve("vm-jnr"));
        String classpath = target.resolve("classes") + ":" + target.resolve("test-classes") + ":"
                + target.resolve("vm-jnr") + "/*:" + vmLibs(target) + "/*";
        SoftRoceVm.buildImageOrAbort(runInVm);
        List<String> command = List.of(runInVm.toString(), "-s", target.toString(), "-t", "900", "--",
                "java", "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", classpath, PROBE);
        long start = System.nanoTime();
        Map<String, String> values = SoftRoceVm.run(new ProcessBuilder(command), Duration.ofMinutes(20));
        System.out.printf("VerbsSoftRoceIT: VM boot + rxe-setup + probe took %.1f s%n", (System.nanoTime() - start) / 1e9);
        return values;
    }
    /**
     * SLF4J (API and the simple provider), Awaitility (with Hamcrest) and the verbs bundle's classes copied under {@code target}, the one
     * folder the VM sees; jnr and jffi are already there ({@code target/vm-jnr}, copied by the build for this probe).
     */
    private static Path vmLibs(Path target) throws IOException {
        Path libs = Files.createDirectories(target.resolve("verbs-vm-lib"));
        // The verbs and netlink bundles' classes are jars from the repository, or classes directories in a reactor
        // build: packed into a jar then, since only target/ is shared with the guest.
        for (Class<?> c : List.of(org.slf4j.LoggerFactory.class, org.slf4j.simple.SimpleLogger.class,
                io.rdmanode.verbs.RdmaVerbs.class, io.rdmanode.netlink.Netlink.class, io.rdmanode.posix.Posix.class,
                org.awaitility.Awaitility.class,
                org.hamcrest.Matcher.class)) {
            try {
                Path jar = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
                if (Files.isDirectory(jar)) {
                    SoftRoceVm.packJar(jar, libs.resolve(c.getPackageName().replace('.', '-') + "-classes.jar"));
                    continue;
                }
                Files.copy(jar, libs.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            } catch (URISyntaxException e) {
                throw new IOException("cannot locate the jar of " + c.getName(), e);
            }
        }
        return libs;
    }
}
