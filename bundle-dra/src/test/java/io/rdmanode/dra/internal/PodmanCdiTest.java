// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real container runtime applies the CDI spec the driver writes for a prepared claim (issue 24): Debian's podman
 * runs a container with {@code --device <our CDI id>}, and the container sees the claim's device nodes (character
 * devices with the host nodes' numbers) and its {@code PCIDEVICE_*} and {@code RDMA_DEVICE_*} environment.
 *
 * <p>Nothing of the host is changed: the host paths of the spec are under the test's own {@code hostDevRoot}
 * ({@link DevicePaths}, as {@code deviceplugin.common.hostDevRoot} sets it), where the test makes real character
 * nodes with mknod; podman 4.3 reads CDI specs only from {@code /etc/cdi} and {@code /var/run/cdi} (no
 * {@code cdi_spec_dirs} in its containers.conf yet), so it runs in a private mount namespace where the test's spec
 * directory is bind-mounted on {@code /var/run/cdi}; the container's root is a directory with a static busybox
 * ({@code --rootfs}: no image, no network).
 */
class PodmanCdiTest {

    private static final String DRIVER = DraSettings.DEFAULT_DRIVER;
    private static final String VF = "pci-0000-3b-00-2";
    private static final String BUSYBOX = "/usr/bin/busybox";

    /**
     * Character-device numbers as the kernel gives them (ib_umad, ib_uverbs, rdma_cm as a misc device): the
     * container has to see exactly the host node's numbers, whatever they are.
     */
    private static final Map<Pattern, int[]> NUMBERS = Map.of(
            Pattern.compile("umad(\\d+)"), new int[] {231, 0},
            Pattern.compile("issm(\\d+)"), new int[] {231, 64},
            Pattern.compile("uverbs(\\d+)"), new int[] {231, 192},
            Pattern.compile("rdma_cm()"), new int[] {10, 58});

    @TempDir
    static Path hostDir;

    private static HostSnapshot host;

    @TempDir
    Path dir;

    @BeforeAll
    static void unpack() {
        host = RecordedHostDiscovery.unpack("cx5-roce-sriov", hostDir).snapshot();
    }

    @Test
    void podmanGivesAContainerTheDeviceNodesAndEnvironmentOfOurCdiSpec() throws Exception {
        Optional<Path> podman = onPath("podman");
        Assumptions.assumeTrue(podman.isPresent(), "podman is not installed (Debian package podman; CI installs it)");
        assertThat(Path.of(BUSYBOX)).as("a static busybox for the container's root: apt-get install busybox-static")
                .isExecutable();
        assertThat(run(List.of("id", "-u")).trim()).as("mknod, mount --bind and podman's device nodes need root")
                .isEqualTo("0");

        String uid = UUID.randomUUID().toString();
        Path cdiDir = dir.resolve("cdi");
        Path hostDev = dir.resolve("hostdev");
        FakeClaimReader reader = new FakeClaimReader();
        reader.put("ns", "pod-nic", new ClaimReader.AllocatedClaim(uid,
                List.of(new ClaimReader.Result("nic", DRIVER, "node-1", VF))));
        ClaimPreparer preparer = new ClaimPreparer(DRIVER, reader, () -> host, pci -> Optional.empty(),
                new ClaimCdiSpecs(cdiDir, DRIVER, new DevicePaths(hostDev)), new PreparedClaims(dir.resolve("state/p.json")));
        ClaimRef claim = new ClaimRef("ns", uid, "pod-nic");
        PrepareOutcome prepared = preparer.prepare(claim);
        assertThat(prepared.error()).isEmpty();
        String cdiId = prepared.devices().get(0).cdiIds().get(0);
        String rdmaDevice = prepared.devices().get(0).rdmaDevice();

        List<String> expectedNodes = new ArrayList<>();
        for (JsonNode n : specNodes(cdiDir)) {
            Path hostPath = Path.of(n.path("hostPath").asText());
            assertThat(hostPath).startsWithRaw(hostDev);
            String numbers = mknod(hostPath);
            expectedNodes.add(n.path("path").asText() + "|character special file|" + numbers);
        }
        assertThat(expectedNodes).anyMatch(l -> l.startsWith("/dev/infiniband/uverbs"))
                .anyMatch(l -> l.startsWith("/dev/infiniband/rdma_cm|"));
        Path rootfs = rootfs();

        String out = podmanRun(podman.get(), cdiDir, rootfs, cdiId,
                "env; for f in /dev/infiniband/*; do busybox stat -c '%n|%F|%t:%T' \"$f\"; done");

        List<String> lines = out.lines().toList();
        assertThat(lines).contains("PCIDEVICE_RDMA_RDMANODE_IO_PCI_0000_3B_00_2=0000:3b:00.2",
                "RDMA_DEVICE_PCI_0000_3B_00_2=" + rdmaDevice);
        assertThat(lines.stream().filter(l -> l.startsWith("/dev/")).toList())
                .containsExactlyInAnyOrderElementsOf(expectedNodes);

        // Unprepare removes the spec: the runtime no longer knows the ID.
        assertThat(preparer.unprepare(claim)).isEmpty();
        assertThat(specNodes(cdiDir)).isEmpty();
        assertThat(podmanFails(podman.get(), cdiDir, rootfs, cdiId)).contains("unresolvable CDI devices", cdiId);
    }

    /** The device nodes of every spec in {@code cdiDir} (one spec here: one claim). */
    private static List<JsonNode> specNodes(Path cdiDir) throws IOException {
        List<JsonNode> nodes = new ArrayList<>();
        try (Stream<Path> specs = Files.list(cdiDir)) {
            for (Path spec : specs.toList()) {
                new ObjectMapper().readTree(spec.toFile()).path("devices")
                        .forEach(d -> d.path("containerEdits").path("deviceNodes").forEach(nodes::add));
            }
        }
        return nodes;
    }

    /** A real character node at {@code path}, numbered as the kernel numbers its name; answers "major:minor" in hex. */
    private static String mknod(Path path) throws Exception {
        String name = path.getFileName().toString();
        for (Map.Entry<Pattern, int[]> e : NUMBERS.entrySet()) {
            Matcher m = e.getKey().matcher(name);
            if (m.matches()) {
                int major = e.getValue()[0];
                int minor = e.getValue()[1] + (m.group(1).isEmpty() ? 0 : Integer.parseInt(m.group(1)));
                Files.createDirectories(path.getParent());
                run(List.of("mknod", "-m", "0666", path.toString(), "c", Integer.toString(major),
                        Integer.toString(minor)));
                return Integer.toHexString(major) + ":" + Integer.toHexString(minor);
            }
        }
        throw new AssertionError("no device numbers known for " + path);
    }

    private Path rootfs() throws IOException {
        Path root = dir.resolve("rootfs");
        for (String d : List.of("bin", "dev", "proc", "sys", "etc", "tmp")) {
            Files.createDirectories(root.resolve(d));
        }
        Files.copy(Path.of(BUSYBOX), root.resolve("bin/busybox"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.createSymbolicLink(root.resolve("bin/sh"), Path.of("busybox"));
        Files.createFile(root.resolve("etc/mtab"));       // else podman links it to /proc/mounts, outside the temp dir
        return root;
    }

    private String podmanRun(Path podman, Path cdiDir, Path rootfs, String cdiId, String script) throws Exception {
        Result r = podman(podman, cdiDir, rootfs, cdiId, script);
        assertThat(r.exit()).as(r.output()).isZero();
        return r.output();
    }

    private String podmanFails(Path podman, Path cdiDir, Path rootfs, String cdiId) throws Exception {
        Result r = podman(podman, cdiDir, rootfs, cdiId, "true");
        assertThat(r.exit()).as(r.output()).isNotZero();
        return r.output();
    }

    private record Result(int exit, String output) { }

    /**
     * {@code podman run --rm} in a private mount namespace that sees {@code cdiDir} as {@code /var/run/cdi}. The
     * limits are those scripts/test-deploy gives podman (the default nofile limit is above what a nested
     * machine allows); runc as there.
     */
    private Result podman(Path podman, Path cdiDir, Path rootfs, String cdiId, String script) throws Exception {
        Path runCdi = Path.of("/run/cdi");
        if (!Files.isDirectory(runCdi)) {
            Files.createDirectories(runCdi);     // an empty mount point on the tmpfs, where CDI specs belong anyway
        }
        String name = "rdma-dra-cdi-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
                "mount --bind \"$1\" /var/run/cdi && shift && n=$(ulimit -Hn) && exec \"$@\" --ulimit nofile=$n:$n "
                        + "--ulimit nproc=4096:4096 --network none --name " + name + " --device \"$CDI_ID\" "
                        + "--rootfs \"$ROOTFS\" /bin/busybox sh -c \"$SCRIPT\"",
                "sh", cdiDir.toString(), podman.toString()));
        onPath("runc").ifPresent(runc -> command.addAll(List.of("--runtime", runc.toString())));
        command.addAll(List.of("run", "--rm"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(Map.of("CDI_ID", cdiId, "ROOTFS", rootfs.toString(), "SCRIPT", script));
        Process p = pb.start();
        try {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("podman ended").isTrue();
            return new Result(p.exitValue(), output);
        } finally {
            p.destroyForcibly();
            new ProcessBuilder(podman.toString(), "rm", "-f", "--ignore", name).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(60, TimeUnit.SECONDS);
        }
    }

    private static String run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(command + ": " + output).isZero();
        return output;
    }

    private static Optional<Path> onPath(String command) {
        return Stream.concat(Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")),
                Stream.of("/usr/sbin", "/sbin")).map(d -> Path.of(d, command)).filter(Files::isExecutable).findFirst();
    }
}
