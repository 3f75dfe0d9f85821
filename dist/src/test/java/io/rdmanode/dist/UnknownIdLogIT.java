// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.kubelet.testing.KubeletDouble;
import io.rdmanode.kubelet.testing.PluginClients;
import io.rdmanode.kubelet.testing.RawCalls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 21: a client that repeats an Allocate of an unknown device ID (one run wrote 62 MB of WARN, a line per
 * call) makes the real distribution write a few lines, each with the client's text escaped: 10,000 Allocates
 * naming an ID with a newline in it, from 4 connections.
 */
class UnknownIdLogIT {

    static final String RESOURCE = SriovRdmaNode.RESOURCE;

    private SriovRdmaNode node;
    private AgentProcess agent;
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @BeforeEach
    void world() throws IOException {
        node = new SriovRdmaNode("ul");
    }

    @AfterEach
    void clean() throws IOException {
        callers.shutdownNow();
        if (agent != null) {
            agent.close();
        }
        node.close();
    }

    @Test
    void tenThousandAllocatesOfAnUnknownIdWriteAFewEscapedLines() throws Exception {
        try (KubeletDouble kubelet = KubeletDouble.start(node.pluginDir, node.podResources)) {
            Path state = node.state;
            Path config = node.config();
            agent = AgentProcess.start(node.home, state, Map.of(), "--config", config.toString());
            agent.awaitStarted(Duration.ofSeconds(60));
            kubelet.awaitRegistrations(RESOURCE, 1, Duration.ofSeconds(30));
            Path socket = node.socket();
            long before = agent.output().lines().count();

            List<Future<List<String>>> loops = new ArrayList<>();
            try (PluginClients clients = PluginClients.dial(socket, 4, 2, "unknown-id-client", callers)) {
                for (int c = 0; c < 4; c++) {
                    Runnable call = clients.allocateCall(c, "0000:99:00.1\nFORGED ERROR line");
                    loops.add(callers.submit(() -> {
                        List<String> codes = new ArrayList<>();
                        for (int i = 0; i < 2500; i++) {
                            codes.add(RawCalls.code(call));
                        }
                        return codes;
                    }));
                }
                for (Future<List<String>> loop : loops) {
                    assertThat(loop.get(300, TimeUnit.SECONDS)).containsOnly("INVALID_ARGUMENT");
                }
            }

            List<String> lines = agent.output().lines().skip(before).toList();
            System.out.printf("UnknownIdLogIT: 10000 refused Allocates wrote %d log lines (%d bytes)%n",
                    lines.size(), lines.stream().mapToInt(l -> l.length() + 1).sum());
            assertThat(lines.stream().filter(l -> l.contains("refused"))).hasSizeBetween(1, 6);
            assertThat(lines).hasSizeLessThanOrEqualTo(30);
            assertThat(lines).noneMatch(l -> l.startsWith("FORGED"));
            assertThat(String.join("\n", lines)).contains("0000:99:00.1\\nFORGED ERROR line");
        }
    }
}
