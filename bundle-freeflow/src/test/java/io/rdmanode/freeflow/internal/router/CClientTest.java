// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.freeflow.internal.wire.LayoutTable;
import io.rdmanode.freeflow.testclient.FfClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The clean-room C client (src/test/native/ffclient.c, built by Maven with gcc): real C layouts, MAP_FIXED over
 * the application buffer, the completion channel fd over SCM_RIGHTS, a second tenant under another uid, and
 * kill -9 in the middle of mailbox traffic.
 */
class CClientTest {
    static final Path BINARY = Path.of("target", "ffclient");
    RouterFixture fx;
    final List<Process> started = new ArrayList<>();

    @BeforeEach
    void given_a_router_and_the_c_client() throws IOException {
        Assumptions.assumeTrue(Files.isExecutable(BINARY), "target/ffclient not built (gcc missing)");
        fx = new RouterFixture();
        // Another uid must reach the socket and traverse to its own 0600 files.
        Files.setPosixFilePermissions(fx.dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(fx.shm, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterEach
    void close() throws Exception {
        for (Process p : started) {
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        if (fx != null) {
            fx.close();
        }
    }

    Process start(List<String> prefix, String... args) throws IOException {
        Process p = command(fx, prefix, args).redirectErrorStream(true).start();
        started.add(p);
        return p;
    }

    /** The C client run as {@code prefix... ffclient args...} against fx's router. */
    static ProcessBuilder command(RouterFixture fx, List<String> prefix, String... args) {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(BINARY.toAbsolutePath().toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("FFR_SOCKET", fx.server.socket().toString());
        pb.environment().put("FFR_SHM", fx.shm.toString());
        pb.environment().put("FFR_ID", "42");
        return pb;
    }

    static String firstLine(Process p) throws IOException {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
    }

    @Test
    void the_layout_table_matches_the_c_compiler() throws Exception {
        Process p = start(List.of(), "layouts");
        List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertThat(p.waitFor()).isZero();
        assertThat(lines).hasSizeGreaterThan(40);
        for (String line : lines) {
            String[] w = line.split(" ");
            String struct = w[0].equals("hdr") ? "header" : w[0];
            if (w.length == 2) {
                assertThat(LayoutTable.struct(struct).size()).as(line).isEqualTo(Integer.parseInt(w[1]));
            } else {
                assertThat(LayoutTable.struct(struct).off(w[1])).as(line).isEqualTo(Integer.parseInt(w[2]));
            }
        }
    }

    @Test
    void the_golden_fixtures_are_what_the_c_client_lays_out() throws Exception {
        Process p = start(List.of(), "golden");
        List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertThat(p.waitFor()).isZero();
        assertThat(lines).hasSize(15);
        for (String line : lines) {
            String[] w = line.split(" ");
            assertThat(Files.readString(Path.of("src/test/resources/fixtures/wire", w[0] + ".hex")).strip()).as(w[0])
                    .isEqualTo(w[1]);
        }
    }

    @Test
    void the_c_client_runs_send_recv_write_read_with_map_fixed_and_a_passed_channel_fd() throws Exception {
        Process p = start(List.of(), "selftest");
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(out).startsWith("OK");
        assertThat(p.exitValue()).isZero();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(fx.shmFiles()).isZero());
        assertThat(fx.router.stats().tenantsReclaimed()).isEqualTo(1);
    }

    @Test
    void kill_9_in_the_middle_of_mailbox_traffic_reclaims_everything() throws Exception {
        Process p = start(List.of(), "hold");
        assertThat(firstLine(p)).startsWith("READY");
        assertThat(fx.shmFiles()).isEqualTo(6);
        assertThat(fx.router.tenants()).extracting(TenantFigures::pid).containsExactly((int) p.pid());
        p.destroyForcibly();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(fx.router.tenants()).isEmpty();
            assertThat(fx.shmFiles()).isZero();
        });
        assertThat(fx.router.poller().mailboxes()).isZero();
        assertThat(fx.router.stats().objectsReclaimed()).isEqualTo(2 + 2 + 2 + 1);
    }

    @Test
    void another_uid_gets_its_own_files_and_cannot_reach_or_be_reached_by_other_tenants() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root for setpriv");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv missing");
        List<String> nobody = List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups");
        Process other = start(nobody, "hold");
        String ready = firstLine(other);
        assertThat(ready).startsWith("READY");
        String[] w = ready.split(" ");
        int theirMr = Integer.parseInt(w[1]);
        Path theirFile = fx.shm.resolve(w[3]);
        assertThat(Files.getAttribute(theirFile, "unix:uid")).isEqualTo(65534);
        assertThat(fx.router.tenants()).extracting(TenantFigures::uid).containsExactly(65534);

        // This JVM is another tenant: the same handle names nothing of ours, their MR stays.
        FfClient me = fx.client();
        assertThat(me.ret(FfClient.DEREG_MR, theirMr)).isEqualTo(22);
        assertThat(Files.exists(theirFile)).isTrue();
        // And they cannot open our MR file.
        int pd = me.allocPd();
        FfClient.Mr mine = me.regMr(pd, 4096, 7);
        Process probe = start(nobody, "probe", fx.shm.resolve(mine.shmName()).toString());
        assertThat(probe.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).contains("Permission denied");
    }
}
