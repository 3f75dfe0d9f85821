// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built distribution end to end: start it as a process, wait for /startedz, edit its config and watch
 * /status follow, hot-swap a bundle while the endpoint keeps answering, and stop it with SIGTERM.
 */
class AgentProcessIT {

    static final Path DIST = Path.of(System.getProperty("dist.dir", "target/rdma-node-agent"));
    static final Path PROBE = Path.of(System.getProperty("dist.probe"));

    @TempDir
    Path temp;

    private Path home;
    private Path state;
    private Path config;

    @BeforeEach
    void copyDistribution() throws IOException {
        home = temp.resolve("rdma-node-agent");
        copyTree(DIST, home);
        Files.copy(PROBE, home.resolve("bundles/probe.jar"));
        state = temp.resolve("state");
        config = temp.resolve("agent.conf");
        writeConfig("hello", "");
    }

    @Test
    void startsEditsHotSwapsAndStopsCleanly() throws Exception {
        try (AgentProcess agent = AgentProcess.start(home, state, Map.of(), "--config", config.toString())) {
            String base = agent.awaitStarted(Duration.ofSeconds(60));

            JsonObject status = AgentProcess.json(base + "/status");
            assertThat(status.getAsJsonObject("agent").get("version").getAsString()).isEqualTo(expectedVersion());
            assertThat(bundleState(status, "io.rdmanode.probe")).contains("ACTIVE");
            assertThat(probeGreeting(base)).isEqualTo("hello");
            long revision = status.getAsJsonObject("config").get("revision").getAsLong();

            // A saved edit shows in /status.
            writeConfig("edited", "");
            awaitTrue("edit applied", () -> "edited".equals(probeGreeting(base)));
            assertThat(AgentProcess.json(base + "/status").getAsJsonObject("config").get("revision").getAsLong())
                    .isGreaterThan(revision);

            // Logging follows the file live: JSON lines from the next line on, text again when the key goes.
            writeConfig("edited", "agent.runtime.log.format = json\n");
            awaitTrue("log lines turned JSON", () -> agent.output().lines().anyMatch(l -> l.startsWith("{\"ts\":")
                    && l.contains("logging changed level=INFO format=JSON")));
            assertThat(AgentProcess.json(base + "/status").getAsJsonObject("config").get("runtimeRestartPending")
                    .getAsBoolean()).as("a logging change needs no restart").isFalse();

            // A broken edit is rejected, named by file and line, and changes nothing.
            writeConfig("edited", "probe.size = 1000\n");
            awaitTrue("rejection reported", () -> !AgentProcess.json(base + "/status").getAsJsonObject("config")
                    .get("lastRejected").isJsonNull());
            String rejected = AgentProcess.json(base + "/status").getAsJsonObject("config")
                    .getAsJsonObject("lastRejected").toString();
            assertThat(rejected).contains("agent.conf:").contains("probe.size");
            assertThat(probeGreeting(base)).isEqualTo("edited");
            assertThat(AgentProcess.status(base + "/readyz")).isEqualTo(200);

            // Hot swap: a new build of the probe jar replaces the old one while /healthz keeps answering.
            AtomicInteger failures = new AtomicInteger();
            Thread poller = pollHealthz(base, failures);
            replaceProbeJar(home.resolve("bundles/probe.jar"), "2");
            awaitTrue("probe build 2 active", () -> "2".equals(probeField(base, "build")));
            poller.interrupt();
            poller.join();
            assertThat(failures.get()).as("failed /healthz answers during the swap").isZero();
            awaitTrue("probe build 2 with its configuration", () -> "2".equals(probeField(base, "build"))
                    && "edited".equals(probeGreeting(base)));

            // Removing the jar uninstalls the bundle; the rest keeps serving.
            Files.delete(home.resolve("bundles/probe.jar"));
            awaitTrue("probe uninstalled", () -> bundleState(AgentProcess.json(base + "/status"),
                    "io.rdmanode.probe").isEmpty());
            // /readyz answers from a result refreshed every second (issue 21): ready again within it.
            awaitTrue("ready without the probe", () -> AgentProcess.status(base + "/readyz") == 200);
            // The bridge maps the file again shortly after the bundle event: the section becomes unclaimed, kept.
            awaitTrue("probe section kept while its bundle is away", () -> AgentProcess.json(base + "/status")
                    .getAsJsonObject("config").getAsJsonObject("lastApplied").getAsJsonArray("unclaimed").toString()
                    .contains("probe"));

            // Dropping it in again installs it, and its section of the file applies at once.
            Path back = home.resolve("bundles/.probe.jar.tmp");
            Files.copy(PROBE, back);
            Files.move(back, home.resolve("bundles/probe.jar"), StandardCopyOption.ATOMIC_MOVE);
            awaitTrue("probe back with its configuration", () -> "edited".equals(probeGreeting(base)));

            int exit = agent.terminate(Duration.ofSeconds(15));
            assertThat(exit).as("exit code after SIGTERM; log:\n%s", agent.output()).isZero();
            assertThat(agent.output()).contains("stopped in");
            assertThat(state.resolve("http.url")).doesNotExist();
        }
    }

    @Test
    void demoRunsOnItsOwnTemporaryStateAndSaysWhereItsStatusPageIs() throws Exception {
        Path demoHome = home;
        try (AgentProcess agent = AgentProcess.start(demoHome, temp.resolve("unused"),
                Map.of("RDMA_AGENT_HTTP_PORT", "0"), "--demo")) {
            AgentProcess.DemoBanner demo = agent.awaitDemoBanner(Duration.ofSeconds(60));
            // Started, every door serving; not ready: the demo has no kubelet to register its pools with.
            assertThat(AgentProcess.status(demo.base() + "/startedz")).isEqualTo(200);
            var readyz = AgentProcess.get(demo.base() + "/readyz");
            assertThat(readyz.statusCode()).isEqualTo(503);
            assertThat(readyz.body()).contains("[-]kubelet failed: waiting for kubelet: ", "kubelet.sock absent");
            Path demoState = demo.stateDir();
            assertThat(demoState.resolve("http.url")).exists();

            assertThat(agent.terminate(Duration.ofSeconds(15))).isZero();
            assertThat(demoState).doesNotExist();
        }
    }

    private void writeConfig(String greeting, String extra) throws IOException {
        String hocon = """
                agent {
                  runtime { stateDir = "%s", shutdownTimeout = 10s }
                  http.port = 0
                }
                probe {
                  greeting = %s
                }
                %s""".formatted(state, greeting, extra);
        Path tmp = temp.resolve(".agent.conf.tmp");
        Files.writeString(tmp, hocon);
        Files.move(tmp, config, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static String probeGreeting(String base) throws Exception {
        JsonObject probe = AgentProcess.json(base + "/status").getAsJsonObject("probe");
        return probe == null ? null : probe.getAsJsonObject("config").get("greeting").getAsString();
    }

    private static String probeField(String base, String field) throws Exception {
        JsonObject probe = AgentProcess.json(base + "/status").getAsJsonObject("probe");
        return probe == null || probe.get(field) == null ? null : probe.get(field).getAsString();
    }

    private static Optional<String> bundleState(JsonObject status, String symbolicName) {
        JsonArray bundles = status.getAsJsonArray("bundles");
        for (JsonElement element : bundles) {
            JsonObject bundle = element.getAsJsonObject();
            if (symbolicName.equals(bundle.get("symbolicName").getAsString())) {
                return Optional.of(bundle.get("state").getAsString());
            }
        }
        return Optional.empty();
    }

    private static Thread pollHealthz(String base, AtomicInteger failures) {
        Thread poller = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                int code = AgentProcess.status(base + "/healthz");
                if (Thread.currentThread().isInterrupted()) {
                    return; // stopped mid-request: not an answer of the agent
                }
                if (code != 200) {
                    failures.incrementAndGet();
                }
            }
        });
        poller.start();
        return poller;
    }

    /** Writes a copy of the jar with another Probe-Build header and renames it over the original. */
    private void replaceProbeJar(Path jar, String build) throws IOException {
        Path tmp = jar.resolveSibling(".probe.jar.tmp");
        try (JarInputStream in = new JarInputStream(Files.newInputStream(jar))) {
            Manifest manifest = in.getManifest();
            manifest.getMainAttributes().putValue("Probe-Build", build);
            try (OutputStream file = Files.newOutputStream(tmp); JarOutputStream out = new JarOutputStream(file, manifest)) {
                for (JarEntry entry; (entry = in.getNextJarEntry()) != null; ) {
                    out.putNextEntry(new JarEntry(entry.getName()));
                    in.transferTo(out);
                    out.closeEntry();
                }
            }
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    interface Check {
        boolean holds() throws Exception;
    }

    /** A check that throws (the agent briefly unreachable during a swap) counts as "not yet". */
    private static void awaitTrue(String what, Check check) {
        Awaitility.await(what).atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20)).ignoreExceptions().until(check::holds);
    }

    private static String expectedVersion() {
        return System.getProperty("dist.version");
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : (Iterable<Path>) paths.sorted(Comparator.naturalOrder())::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

}
