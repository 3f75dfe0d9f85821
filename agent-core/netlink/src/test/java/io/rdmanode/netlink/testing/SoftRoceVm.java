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
}
