// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * The Soft-RoCE testbed VM ({@code ../shared/testbed}, README there) for the tests that need the kernel's real
 * RDMA stack, shared through netlink's test-jar: when such a test runs, where the testbed is, and how a probe's
 * answer comes back (its {@code key=value} lines). The VM takes both cores of a small machine for 20-60 s, so it
 * runs only when asked: environment {@code CI} set (as {@code .ci/run} does) or {@code -Drdma.testbed.vm=true};
 * {@code -Drdma.testbed=DIR} points at another testbed folder.
 */
public final class SoftRoceVm {

    private SoftRoceVm() {
    }

    /**
     * The testbed's {@code run-in-vm.sh}; skips the calling test, saying why, when the VM is not asked for, when
     * this is not the JDK 17 pass (the guest runs its own JRE 17: another pass would test the same thing again) or
     * when there is no testbed. By default the testbed sits beside the checkout, found from the module directory
     * the test runs in, however deep the checkout is.
     */
    public static Path runInVm() {
        Assumptions.assumeTrue(Boolean.getBoolean("rdma.testbed.vm") || System.getenv("CI") != null,
                "the Soft-RoCE VM test runs with CI set or -Drdma.testbed.vm=true (it boots a VM for 20-60 s)");
        Assumptions.assumeTrue(Runtime.version().feature() == 17,
                "the VM runs its own JRE 17; this test runs in the JDK 17 pass only");
        String configured = System.getProperty("rdma.testbed");
        Path testbed = configured != null ? Path.of(configured) : checkoutRoot().resolveSibling("shared/testbed");
        Path script = testbed.resolve("run-in-vm.sh");
        Assumptions.assumeTrue(Files.isExecutable(script), "no Soft-RoCE testbed at " + testbed
                + " (set -Drdma.testbed=DIR to the folder with run-in-vm.sh)");
        return script;
    }

    /** The checkout's top folder (the one with {@code mvnw}), from the module directory the test runs in. */
    private static Path checkoutRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir.getParent() != null && !Files.exists(dir.resolve("mvnw"))) {
            dir = dir.getParent();
        }
        return dir;
    }

    /**
     * Runs a {@code run-in-vm.sh} command and returns the probe's {@code key=value} lines, first value of a key
     * kept. Prints the whole output for the build log; skips on the testbed's own failure (exit 125: qemu or the
     * boot, no verdict on our code) and fails on any other non-zero exit or on a VM that outlives the timeout.
     */
    public static Map<String, String> run(ProcessBuilder command, Duration timeout)
            throws IOException, InterruptedException {
        Process vm = command.redirectErrorStream(true).start();
        String output = new String(vm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean exited = vm.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        System.out.println(output);
        if (!exited) {
            vm.destroyForcibly();
            throw new AssertionError("the testbed VM did not exit within " + timeout);
        }
        Assumptions.assumeFalse(vm.exitValue() == 125, "the testbed VM failed to boot (exit 125); see the output");
        if (vm.exitValue() != 0) {
            throw new AssertionError("run-in-vm.sh exited " + vm.exitValue() + "; output:\n" + output);
        }
        Map<String, String> values = new LinkedHashMap<>();
        output.lines().filter(l -> l.matches("[a-z][\\w.-]*=.*"))
                .forEach(l -> values.putIfAbsent(l.substring(0, l.indexOf('=')), l.substring(l.indexOf('=') + 1)));
        return values;
    }

    /**
     * Skips the calling test when qemu is missing and cannot be installed: the testbed installs its host tools
     * itself, which needs root.
     */
    public static void assumeQemu() {
        boolean qemu = Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, "qemu-system-x86_64")));
        Assumptions.assumeTrue(qemu || "root".equals(System.getProperty("user.name")), "qemu-system-x86_64 is not"
                + " installed and the testbed cannot install it without root (apt-get install qemu-system-x86 mmdebstrap)");
    }

    /**
     * Builds (or finds cached) the testbed image first, on its own: a Debian mirror or package-install failure is
     * the infrastructure's, reported as an aborted test with the tail of the log, not as a failure of our code.
     *
     * @param runInVm the testbed's {@code run-in-vm.sh} ({@link #runInVm()})
     */
    public static void buildImageOrAbort(Path runInVm) throws IOException, InterruptedException {
        Process build = new ProcessBuilder(runInVm.resolveSibling("build-image.sh").toString())
                .redirectErrorStream(true).start();
        String log = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean done = build.waitFor(15, TimeUnit.MINUTES);
        if (!done) {
            build.destroyForcibly();
        }
        String tail = log.lines().skip(Math.max(0, log.lines().count() - 20)).reduce("", (a, b) -> a + b + "\n");
        Assumptions.assumeTrue(done && build.exitValue() == 0, "the testbed image could not be built:\n" + tail);
    }

    /**
     * Packs a classes directory into {@code jar}: a reactor build puts modules' classes in directories outside the
     * one folder the guest sees ({@code target}), so they go in as jars.
     */
    public static void packJar(Path classes, Path jar) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> walk = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString()));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
    }
}
