// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live edit of agent.http that passes validation but cannot be bound (the port taken by another program): the
 * endpoint used to go down for good (SCR re-activates it after the old socket closed; the new bind failed), so no
 * /healthz for a liveness probe and no /status saying why. And right after any re-bind, /readyz answered 200 with
 * nothing checked, before SCR had injected the checks. Through the built distribution's demo, which is never ready
 * (no kubelet): any 200 from /readyz is that bug.
 */
class HttpRebindIT {

    static final Path DIST = ShippedConfigIT.DIST.toAbsolutePath();

    @TempDir
    Path temp;

    @Test
    void anEditToATakenPortKeepsTheEndpointWhereItWasAndReadyzSaysWhy() throws Exception {
        String good = Files.readString(DIST.resolve("config/demo.conf")) + "\n";
        Path config = temp.resolve("agent.conf");
        write(config, good);
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             AgentProcess agent = AgentProcess.start(DIST, temp.resolve("unused"),
                     Map.of("RDMA_AGENT_HTTP_PORT", "0"), "--demo", "--config", config.toString())) {
            String base = agent.awaitDemoBanner(Duration.ofSeconds(60)).base();
            Awaitility.await("started").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> AgentProcess.status(base + "/startedz") == 200);
            List<String> readyAnswers = new CopyOnWriteArrayList<>();
            AtomicBoolean polling = new AtomicBoolean(true);
            Thread poller = new Thread(() -> {
                while (polling.get()) {
                    if (AgentProcess.status(base + "/readyz") == 200) {
                        readyAnswers.add("200 at " + System.nanoTime());
                    }
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            poller.start();
            try {
                String edit = good + "agent.http.threads = 3\nagent.http.port = " + taken.getLocalPort() + "\n";
                write(config, edit);
                Awaitility.await("the edit applied").atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                        .until(() -> BadEditCorpusIT.seen(BadEditCorpusIT.configStatus(base),
                                BadEditCorpusIT.checksum(edit)));
                Awaitility.await("/readyz names the refused bind").atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                        .until(() -> AgentProcess.get(base + "/readyz").body(),
                                b -> b.contains("cannot bind 127.0.0.1:" + taken.getLocalPort()));
                assertThat(AgentProcess.status(base + "/healthz")).as("still serving where it was").isEqualTo(200);
                assertThat(AgentProcess.get(base + "/readyz").body()).contains("serving on 127.0.0.1:"
                        + base.substring(base.lastIndexOf(':') + 1));
            } finally {
                polling.set(false);
                poller.join();
            }
            assertThat(readyAnswers).as("/readyz while the endpoint re-bound (the demo is never ready)").isEmpty();

            // An edit naming a port it can bind moves the endpoint there, and the refusal is gone.
            int free;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                free = probe.getLocalPort();
            }
            write(config, good + "agent.http.port = " + free + "\n");
            String moved = "http://127.0.0.1:" + free;
            Awaitility.await("moved").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                    .until(() -> AgentProcess.status(moved + "/healthz") == 200);
            Awaitility.await("no refusal").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions().until(() -> !AgentProcess.get(moved + "/readyz").body().contains("cannot bind"));
        }
    }

    private void write(Path config, String content) throws java.io.IOException {
        Path tmp = temp.resolve(".agent.conf.tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, config, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
