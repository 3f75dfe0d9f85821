// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/** The distribution started as users start it: {@code bin/rdma-node-agent} as a child process. */
final class AgentProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    final Path home;
    final Path stateDir;
    final Path log;
    private final Process process;

    private AgentProcess(Path home, Path stateDir, Path log, Process process) {
        this.home = home;
        this.stateDir = stateDir;
        this.log = log;
        this.process = process;
    }

    static AgentProcess start(Path home, Path stateDir, Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin/rdma-node-agent").toString());
        command.addAll(List.of(args));
        Path log = Files.createTempFile(home, "agent", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        // No class-data-sharing training run behind each test's agent unless the test asks for one.
        builder.environment().put("RDMA_AGENT_CDS_DIR", "");
        env.forEach((name, value) -> {
            if (value == null) {
                builder.environment().remove(name); // as if the node's environment did not set it
            } else {
                builder.environment().put(name, value);
            }
        });
        return new AgentProcess(home, stateDir, log, builder.start());
    }

    /**
     * What {@code --demo} announces once it runs ({@code rdma-node-agent demo is running. Status: URL/status ...
     * (state in DIR; Ctrl-C stops it)}).
     *
     * @param base     the HTTP base URL ({@code http://127.0.0.1:PORT})
     * @param stateDir the demo's temporary state directory (device-plugin sockets, CNI state)
     */
    record DemoBanner(String base, Path stateDir) {

        static final Pattern LINE = Pattern.compile(
                "demo is running\\. Status: (http://\\S+)/status .*\\(state in (\\S+);");
    }

    /** Waits for the demo's banner; fails at once if the agent exits. */
    DemoBanner awaitDemoBanner(Duration timeout) throws IOException {
        return await("demo banner", timeout, () -> {
            Matcher m = DemoBanner.LINE.matcher(output());
            return m.find() ? new DemoBanner(m.group(1), Path.of(m.group(2))) : null;
        });
    }

    /**
     * Waits for the bound URL and a 200 from /startedz (every bundle active, every door serving; kubelet may be
     * absent); returns the base URL. Fails at once if the agent exits.
     */
    String awaitStarted(Duration timeout) throws IOException {
        return awaitPath("agent started", "/startedz", timeout);
    }

    /** As {@link #awaitStarted}, for a 200 from /readyz: every pool also registered with kubelet. */
    String awaitReady(Duration timeout) throws IOException {
        return awaitPath("agent ready", "/readyz", timeout);
    }

    private String awaitPath(String what, String path, Duration timeout) throws IOException {
        return await(what, timeout, () -> {
            Path urlFile = stateDir.resolve("http.url");
            if (Files.isRegularFile(urlFile)) {
                String base = Files.readString(urlFile).trim();
                if (status(base + path) == 200) {
                    return base;
                }
            }
            return null;
        });
    }

    /** What {@code probe} sees once it sees something; an exited agent is a failure, not a "not yet". */
    private <T> T await(String what, Duration timeout, Callable<T> probe) throws IOException {
        try {
            return Awaitility.await(what).atMost(timeout).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new AssertionError("agent exited with " + process.exitValue() + ":\n" + output());
                        }
                        return probe.call();
                    }, Objects::nonNull);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(what + ": not within " + timeout + ":\n" + output(), e);
        }
    }

    static int status(String url) {
        try {
            return get(url).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the caller's loop must see it to stop
            return -1;
        }
    }

    static HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static JsonObject json(String url) throws IOException, InterruptedException {
        return JsonParser.parseString(get(url).body()).getAsJsonObject();
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** SIGTERM, as systemd and kubelet send it; returns the exit code. */
    int terminate(Duration timeout) throws Exception {
        process.destroy();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("agent did not stop within " + timeout + ":\n" + output());
        }
        return process.exitValue();
    }

    /** Waits for the agent to exit by itself (no signal); returns the exit code. */
    int awaitExit(Duration timeout) throws Exception {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("agent did not exit within " + timeout + ":\n" + output());
        }
        return process.exitValue();
    }

    /** SIGKILL, as the OOM killer or a node crash stops it: no shutdown hook runs. Returns once it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("agent " + process.pid() + " still alive 30 s after SIGKILL");
        }
    }

    String output() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
