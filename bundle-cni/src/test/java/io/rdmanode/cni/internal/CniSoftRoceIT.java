// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.netlink.testing.SoftRoceVm;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;

/**
 * The CNI path against a real kernel (Debian 12, 6.1) in the Soft-RoCE testbed VM ({@link CniVmProbe} runs
 * inside): ADD through the installed client in shared netns mode is refused naming the mode and how to change
 * it; after the mode is set to exclusive through RDMA netlink, ADD of the rxe device (deviceID = the PCI address
 * of the NIC it runs on) comes back as CNI error 102 naming EOPNOTSUPP, the device and the driver limitation,
 * with no state left and the device still in the host. The VM gets a vmxnet3 NIC with no peer (qemu
 * {@code -device vmxnet3}, no backend: it reaches nothing, as the testbed requires) so that the rxe device has
 * a PCI function behind it, as a VF would. Runs with CI set or -Drdma.testbed.vm=true
 * (failsafe: -DargLine=-Drdma.testbed=DIR when the testbed is elsewhere).
 */
class CniSoftRoceIT {

    @Test
    void eopnotsuppAndSharedModeAreClearCniErrorsOnARealKernel() throws Exception {
        Path runInVm = SoftRoceVm.runInVm();
        Path target = Path.of("").toAbsolutePath().resolve("target");
        String classpath = target.resolve("classes") + ":" + target.resolve("test-classes") + ":"
                + String.join(":", vmLibraries(target));
        ProcessBuilder pb = new ProcessBuilder(runInVm.toString(), "-s", target.toString(), "-t", "900", "--",
                "java", "-XX:TieredStopAtLevel=1", "-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "-cp",
                classpath, CniVmProbe.class.getName());
        String extra = System.getenv().getOrDefault("RDMA_TESTBED_QEMU_ARGS", "");
        pb.environment().put("RDMA_TESTBED_QEMU_ARGS", (extra + " -device vmxnet3,id=cninic").trim());
        Map<String, String> out = SoftRoceVm.run(pb, Duration.ofMinutes(20));

        String pci = out.get("nic.pci");
        assertThat(out).containsEntry("done", "true").containsEntry("rxe.add", "0")
                .containsEntry("discovered.rxe0.parentPci", pci).containsEntry("client.installed", "true")
                .containsEntry("mode.initial", "SHARED");
        // Shared mode: refused before anything changes, naming the mode and both ways to switch.
        assertThat(out).containsEntry("shared.add.exit", "1").containsEntry("shared.add.code", "101")
                .containsEntry("shared.state.files", "0");
        assertThat(out.get("shared.add.msg")).contains("netns mode is shared", "needs exclusive",
                "rdma system set netns exclusive", "netns_mode=0");
        // Exclusive mode (set through RDMA netlink): the kernel refuses to move rxe0, the CNI says why.
        assertThat(out).containsEntry("set.exclusive", "ok").containsEntry("mode.after.set", "EXCLUSIVE");
        assertThat(out).containsEntry("exclusive.add.exit", "1").containsEntry("exclusive.add.code", "102")
                .containsEntry("exclusive.add.details", "EOPNOTSUPP");
        assertThat(out.get("exclusive.add.msg")).contains("rxe0", pci, "/var/run/netns/pod2", "EOPNOTSUPP",
                "rdma_rxe (Soft-RoCE on " + out.get("nic") + ")", "cannot move RDMA devices between network namespaces",
                "disassociate_ucontext");
        assertThat(out).containsEntry("exclusive.state.files", "0").containsEntry("exclusive.rxe0.in.host", "true")
                .containsEntry("exclusive.rxe0.in.pod", "false").containsEntry("exclusive.del.exit", "0")
                .containsEntry("status.exit", "0");
    }

    /**
     * The jars the probe needs, copied under target/vm-lib (the VM sees only the shared target folder): the agent
     * modules (and discovery's test-jar), Jackson, slf4j, OSGi core, and the jnr jars the posix bundle embeds.
     */
    private static List<String> vmLibraries(Path target) throws IOException {
        Path libs = target.resolve("vm-lib");
        if (Files.exists(libs)) {
            try (Stream<Path> walk = Files.walk(libs)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(libs);
        List<String> entries = new ArrayList<>();
        for (Class<?> c : List.of(org.slf4j.LoggerFactory.class, org.slf4j.simple.SimpleLogger.class,
                com.fasterxml.jackson.databind.ObjectMapper.class, com.fasterxml.jackson.core.JsonFactory.class,
                com.fasterxml.jackson.annotation.JsonAutoDetect.class, org.osgi.framework.BundleContext.class,
                io.rdmanode.health.HealthCheck.class, io.rdmanode.discovery.RdmaDiscovery.class,
                io.rdmanode.discovery.testing.SysfsTree.class,
                io.rdmanode.netlink.Netlink.class, io.rdmanode.posix.Posix.class, io.rdmanode.agent.ConfigValidator.class,
                org.awaitility.Awaitility.class, org.hamcrest.Matcher.class)) {
            Path from = location(c);
            if (Files.isDirectory(from)) { // a reactor build may resolve a module to its classes folder
                Path to = libs.resolve("dir-" + entries.size());
                copyTree(from, to);
                entries.add(to.toString());
                Path embed = from.resolveSibling("embed"); // agent-core/posix's copied jnr jars
                if (c == io.rdmanode.posix.Posix.class && Files.isDirectory(embed)) {
                    copyTree(embed, libs.resolve("embed"));
                }
            } else {
                Files.copy(from, libs.resolve(from.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                if (c == io.rdmanode.posix.Posix.class) {
                    extractLibJars(from, libs.resolve("embed"));
                }
            }
        }
        entries.add(libs + "/*");
        entries.add(libs.resolve("embed") + "/*");
        return entries;
    }

    private static Path location(Class<?> c) throws IOException {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path dest = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(dest);
                } else {
                    Files.copy(p, dest, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /** The bundle's lib/*.jar (jnr-ffi, jffi and its native part, asm), as its Bundle-ClassPath has them. */
    private static void extractLibJars(Path bundle, Path to) throws IOException {
        Files.createDirectories(to);
        try (InputStream in = Files.newInputStream(bundle); ZipInputStream zip = new ZipInputStream(in)) {
            for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
                if (e.getName().startsWith("lib/") && e.getName().endsWith(".jar")) {
                    Files.copy(zip, to.resolve(e.getName().substring(4)), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
