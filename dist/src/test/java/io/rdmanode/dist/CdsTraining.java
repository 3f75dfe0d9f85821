// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import io.rdmanode.kubelet.testing.KubeletDouble;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The build's class-data-sharing training run: the built distribution's start script with
 * {@code RDMA_AGENT_CDS_TRAIN=1} on the demo host, its pools registering with the kubelet double until the agent
 * is ready, then stopped with SIGTERM (the JVM writes the archive as it exits). A training run on the demo alone
 * never reaches kubelet, so the classes a start after a crash loads last, on the way to every pool registered (the
 * gRPC client, {@code Register}, the calls kubelet makes back, about 500 classes), were parsed and verified at every
 * start; with kubelet here they come from the archive. The double is test code: the shipped archive holds only the
 * agent's own classes. Run by the dist module's {@code cds-archive} execution; exits non-zero when no archive was
 * made.
 *
 * <p>Usage: {@code CdsTraining DIST_DIR LOG_FILE}.
 */
public final class CdsTraining {

    private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);
    private static final Pattern STATUS_PAGE = Pattern.compile("status page (http://\\S+)/status");

    private CdsTraining() {
    }

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(args[0]).toAbsolutePath();
        Path log = Path.of(args[1]).toAbsolutePath();
        // Socket paths must fit sun_path: a short directory, not the build's target/.
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "cds-training");
        int code;
        try {
            code = train(dist, log, dir);
        } finally {
            try (Stream<Path> all = Files.walk(dir)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        System.exit(code);                                     // after the clean-up: exit skips finally blocks
    }

    private static int train(Path dist, Path log, Path dir) throws IOException, InterruptedException {
        Path pluginDir = Files.createDirectories(dir.resolve("dp"));
        Path podResources = dir.resolve("pr.sock");
        // The demo's configuration, its pools served to the double instead of a directory no kubelet watches.
        Path config = Files.writeString(dir.resolve("training.conf"), """
                include file("%s")
                kubelet { pluginDir = "%s", podResourcesSocket = "%s" }
                """.formatted(dist.resolve("config/demo.conf"), pluginDir, podResources));
        try (KubeletDouble kubelet = KubeletDouble.start(pluginDir, podResources)) {
            ProcessBuilder builder = new ProcessBuilder(dist.resolve("bin/rdma-node-agent").toString(), "--demo",
                    "--config", config.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().put("RDMA_AGENT_CDS_TRAIN", "1");
            builder.environment().put("RDMA_AGENT_HTTP_PORT", "0");
            builder.environment().remove("NOTIFY_SOCKET");
            Process agent = builder.start();
            Optional<String> base = awaitReady(agent, log);
            if (base.isEmpty()) {
                agent.destroyForcibly().waitFor();
                System.err.println("CDS training: the agent was not ready (every pool registered) within "
                        + READY_TIMEOUT.toSeconds() + " s; see " + log);
                return 1;
            }
            // What --exit-when-ready asked as well: the status page's classes (the status command reads it).
            get(base.get() + "/status");
            agent.destroy();                                   // SIGTERM: a clean stop, the archive written at exit
            if (!agent.waitFor(2, TimeUnit.MINUTES)) {
                agent.destroyForcibly().waitFor();
                System.err.println("CDS training: the agent did not stop within 2 minutes; see " + log);
                return 1;
            }
            if (agent.exitValue() != 0 || kubelet.registrations() == 0) {
                System.err.println("CDS training: agent exit " + agent.exitValue() + " after "
                        + kubelet.registrations() + " registrations; see " + log);
                return 1;
            }
            return 0;
        }
    }

    /** The status page's base URL once the launcher logs that every pool is registered; empty when it never does. */
    private static Optional<String> awaitReady(Process agent, Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline && agent.isAlive()) {
            String text = Files.readString(log);
            Matcher page = STATUS_PAGE.matcher(text);
            if (page.find() && (text.contains("; ready\n") || text.contains("agent ready:"))) {
                return Optional.of(page.group(1));
            }
            Thread.sleep(50);
        }
        return Optional.empty();
    }

    private static void get(String url) throws IOException, InterruptedException {
        HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.discarding());
    }
}
