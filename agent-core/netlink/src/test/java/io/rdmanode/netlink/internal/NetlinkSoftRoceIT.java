// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

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
import org.junit.jupiter.api.Test;

/**
 * RDMA netlink against a real kernel (Debian 12, 6.1) in the Soft-RoCE testbed VM: NetlinkVmProbe's dump, mode
 * set/get, the EOPNOTSUPP of moving an rxe device, EBUSY of a mode change while a namespace exists. Runs with
 * CI set or -Drdma.testbed.vm=true (failsafe: -DargLine=-Drdma.testbed=DIR when the testbed is elsewhere).
 */
class NetlinkSoftRoceIT {

    @Test
    void rdmaNetlinkOnARealKernel() throws Exception {
        Path runInVm = SoftRoceVm.runInVm();
        Path target = Path.of("").toAbsolutePath().resolve("target");
        Path libs = Files.createDirectories(target.resolve("vm-lib"));
        for (Class<?> c : List.of(org.slf4j.LoggerFactory.class, org.slf4j.simple.SimpleLogger.class,
                org.awaitility.Awaitility.class, org.hamcrest.Matcher.class, io.rdmanode.posix.Posix.class)) {
            try {
                Path jar = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
                if (Files.isDirectory(jar)) { // a reactor build may resolve agent-posix to its classes folder
                    SoftRoceVm.packJar(jar, libs.resolve(c.getPackageName().replace('.', '-') + "-classes.jar"));
                    continue;
                }
                Files.copy(jar, libs.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            } catch (URISyntaxException e) {
                throw new IOException(e);
            }
        }
        // libc through the posix bundle's classes, jnr-ffi from target/vm-jnr (copied by the build for this probe).
        String classpath = target.resolve("classes") + ":" + target.resolve("test-classes") + ":"
                + target.resolve("vm-jnr") + "/*:" + libs + "/*";
        Map<String, String> out = SoftRoceVm.run(new ProcessBuilder(runInVm.toString(), "-s", target.toString(), "-t",
                "600", "--", "java", "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", classpath,
                NetlinkVmProbe.class.getName()), Duration.ofMinutes(15));

        assertThat(out).containsEntry("done", "true").containsEntry("rxe-setup.exit", "0");
        assertThat(out.get("links")).isEqualTo("rxe0,rxe1");
        assertThat(out).containsEntry("links.protocol", "roce").containsEntry("mode.default", "SHARED")
                .containsEntry("set.exclusive", "ok").containsEntry("mode.after.set", "EXCLUSIVE")
                .containsEntry("netns.add", "0")
                .containsEntry("move.rxe0", "EOPNOTSUPP")
                .containsEntry("move.missing", "ENODEV")
                .containsEntry("set.shared.with.netns", "EBUSY")
                .containsEntry("set.shared", "ok").containsEntry("mode.final", "SHARED");
        // The sysfs view the metrics bundle reads a pod's device through follows the kernel's netns rules.
        assertThat(out).containsEntry("sysfs.exclusive.pod.sees.rxe0", "false")
                .containsEntry("sysfs.exclusive.host.sees.rxe0", "true")
                .containsEntry("sysfs.shared.netns.sees.rxe0", "true");
    }
}
