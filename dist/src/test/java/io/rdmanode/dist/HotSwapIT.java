// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.kubelet.testing.KubeletDouble;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot swap on the built distribution, as an operator does it, with a kubelet double counting the device plugins'
 * registrations: {@code touch} of every jar in {@code bundles/} (and a {@code cp} of the same build over one)
 * restarts nothing and resets no ListAndWatch stream; a new build of the SR-IOV plugin bundle, copied over its
 * jar, restarts its pools exactly once while the shared plugin's pools stay registered and streaming.
 */
class HotSwapIT {

    static final List<String> SHARED = List.of("rdma/hca_pf", "rdma/hca_vf_pf0");
    static final List<String> SRIOV = List.of("rdma/sriov_pf0_low", "rdma/sriov_rdma");
    /** How long "nothing more happens" must hold: the old double restart came ~200 ms after the first. */
    static final Duration STILL = Duration.ofSeconds(2);

    @TempDir
    Path temp;

    @Test
    void touchRestartsNothingAndANewBuildRestartsItsPoolsOnce() throws Exception {
        Path home = temp.resolve("rdma-node-agent");
        AgentProcessIT.copyTree(AgentProcessIT.DIST, home);
        Path bundles = home.resolve("bundles");
        try (AgentProcess agent = AgentProcess.start(home, temp.resolve("unused"),
                Map.of("RDMA_AGENT_HTTP_PORT", "0"), "--demo")) {
            awaitTrue("demo announces its state directory", () -> agent.output().contains("demo is running"));
            String line = agent.output().lines().filter(l -> l.contains("demo is running")).findFirst().orElseThrow();
            Path state = Path.of(line.replaceAll(".*state in (\\S+);.*", "$1"));
            try (KubeletDouble kubelet = KubeletDouble.start(state.resolve("device-plugins"))) {
                Map<String, KubeletDouble.Watch> streams = new HashMap<>();
                for (String resource : Stream.concat(SHARED.stream(), SRIOV.stream()).toList()) {
                    kubelet.awaitRegistrations(resource, 1, Duration.ofSeconds(30));
                    streams.put(resource, kubelet.watch(resource, Duration.ofSeconds(10)));
                }

                // touch every jar, and cp the same build over the SR-IOV one (same bytes, written in place).
                Path sriovJar;
                try (Stream<Path> jars = Files.list(bundles)) {
                    List<Path> all = jars.filter(p -> p.toString().endsWith(".jar")).toList();
                    for (Path jar : all) {
                        Files.setLastModifiedTime(jar, FileTime.from(Instant.now()));
                    }
                    sriovJar = all.stream().filter(p -> p.getFileName().toString().contains("deviceplugin-sriov"))
                            .findFirst().orElseThrow();
                }
                Files.write(sriovJar, Files.readAllBytes(sriovJar));
                // The launcher logs only what it changed: a jar dropped in after the touches shows that a sync
                // covering them has run.
                Path marker = bundles.resolve(".probe.jar.tmp");
                Files.copy(AgentProcessIT.PROBE, marker);
                Files.move(marker, bundles.resolve("probe.jar"), StandardCopyOption.ATOMIC_MOVE);
                awaitTrue("the sync after the touches", () -> agent.output().contains("installed=[io.rdmanode.probe/"));
                assertThat(agent.output().lines().filter(l -> l.contains("bundles changed")).toList())
                        .as("only the probe installed").singleElement().asString().contains("updated=[]");
                still("touched jars: every pool registered once, every stream open", () ->
                        streams.keySet().stream().allMatch(r -> kubelet.registrations(r) == 1
                                && streams.get(r).open()));

                // A new build of the SR-IOV plugin copied over its jar (cp writes in place).
                byte[] build2 = rebuilt(sriovJar, "2");
                long start = System.nanoTime();
                try (OutputStream out = Files.newOutputStream(sriovJar)) {
                    out.write(build2);
                }
                awaitTrue("the SR-IOV bundle updated",
                        () -> agent.output().contains("updated=[io.rdmanode.deviceplugin.sriov/"));
                for (String resource : SRIOV) {
                    long again = kubelet.awaitRegistrations(resource, 2, Duration.ofSeconds(30));
                    System.out.printf("%s registered again %d ms after the new build was written%n", resource,
                            (again - start) / 1_000_000);
                }
                still("the SR-IOV pools registered exactly twice (start, one restart); the shared ones once, streaming",
                        () -> SRIOV.stream().allMatch(r -> kubelet.registrations(r) == 2)
                                && SHARED.stream().allMatch(r -> kubelet.registrations(r) == 1
                                        && streams.get(r).open()));
                assertThat(kubelet.registrations()).as("registrations").isEqualTo(SHARED.size() + 2 * SRIOV.size());
                agent.output().lines().filter(l -> l.contains("bundles changed")).forEach(System.out::println);
            }
            assertThat(agent.terminate(Duration.ofSeconds(15))).as("exit code; log:\n%s", agent.output()).isZero();
        }
    }

    /** The jar's bytes with one more manifest header: another build of the same bundle. */
    static byte[] rebuilt(Path jar, String build) throws IOException {
        Path tmp = Files.createTempFile("rebuilt", ".jar");
        try (JarInputStream in = new JarInputStream(Files.newInputStream(jar))) {
            Manifest manifest = in.getManifest();
            manifest.getMainAttributes().putValue("X-Build", build);
            try (OutputStream file = Files.newOutputStream(tmp); JarOutputStream out = new JarOutputStream(file, manifest)) {
                for (JarEntry entry; (entry = in.getNextJarEntry()) != null; ) {
                    out.putNextEntry(new JarEntry(entry.getName()));
                    in.transferTo(out);
                    out.closeEntry();
                }
            }
            return Files.readAllBytes(tmp);
        } finally {
            Files.delete(tmp);
        }
    }

    interface Check {
        boolean holds() throws Exception;
    }

    private static ConditionFactory poll(String what) {
        return Awaitility.await(what).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20));
    }

    private static void awaitTrue(String what, Check check) {
        poll(what).atMost(Duration.ofSeconds(30)).ignoreExceptions().until(check::holds);
    }

    /** The condition holds now and keeps holding for {@link #STILL}. */
    private static void still(String what, Check check) {
        poll(what).during(STILL).atMost(STILL.plusSeconds(5)).until(check::holds);
    }
}
