// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmanode.launcher.status.StatusView;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code rdma-node-agent status}: a running agent's {@code /status} as tables (or as JSON with {@code --json}).
 * The agent is found through {@code --url}, else the {@code http.url} file in the state directory named by
 * the configuration (what the agent wrote when it bound), else the default endpoint.
 */
final class StatusCommand {

    static final String USAGE = """
            usage: rdma-node-agent status [--url URL] [--config PATH] [--json]
              --url URL       the agent's HTTP endpoint (default: <stateDir>/http.url, else http://127.0.0.1:9456)
              --config PATH   the agent's configuration, to find its state directory (default: <home>/config/agent.conf)
              --json          print /status as JSON instead of tables
            exit status: 0 ready (every pool registered with kubelet) and every check passes, 1 running but
            not ready (for example waiting for kubelet) or a check failing, 5 not reachable (or what answers
            is not an agent), 2 usage
            """;
    static final int EXIT_NOT_READY = ExitCode.FAILURE.code;
    static final int EXIT_USAGE = ExitCode.USAGE.code;
    static final int EXIT_UNREACHABLE = ExitCode.RESOURCE_UNAVAILABLE.code;
    private static final URI DEFAULT_URL = URI.create("http://127.0.0.1:9456");

    private final PrintStream out;
    private final PrintStream err;

    StatusCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int run(Path home, String[] args) {
        Optional<URI> url = Optional.empty();
        Path config = home.resolve("config").resolve("agent.conf");
        boolean json = false;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--url" -> url = Optional.of(httpUrl(value(args, ++i, "--url")));
                    case "--config" -> config = Path.of(value(args, ++i, "--config"));
                    case "--json" -> json = true;
                    case "--help", "-h" -> {
                        out.print(USAGE);
                        return ExitCode.OK.code;
                    }
                    default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'");
                }
            }
        } catch (IllegalArgumentException e) {
            err.println("rdma-node-agent status: " + e.getMessage());
            err.print(USAGE);
            return EXIT_USAGE;
        }
        Path configFile = config.toAbsolutePath();
        URI base = url.orElseGet(() -> fromStateDir(configFile));
        return show(base, json);
    }

    /** An http(s) URL with a host; anything else is a usage error (a bare word ended in a stack trace). */
    static URI httpUrl(String value) {
        URI uri;
        try {
            uri = URI.create(value);
        } catch (IllegalArgumentException e) {
            uri = URI.create("invalid:x");
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new IllegalArgumentException("--url '" + value + "' is not an http:// URL (e.g."
                    + " http://127.0.0.1:9456)");
        }
        return uri;
    }

    private int show(URI base, boolean json) {
        String body;
        try {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(base.resolve("/status"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                err.println("rdma-node-agent status: " + base.resolve("/status") + " answered HTTP " + response.statusCode());
                return EXIT_UNREACHABLE;
            }
            body = response.body();
        } catch (IOException e) {
            err.println("rdma-node-agent status: agent not reachable at " + base + ": " + describe(e));
            return EXIT_UNREACHABLE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return EXIT_UNREACHABLE;
        }
        JsonNode status;
        try {
            status = new ObjectMapper().readTree(body);
        } catch (IOException e) {
            err.println("rdma-node-agent status: " + base + "/status is not JSON: " + e.getMessage());
            return EXIT_UNREACHABLE;
        }
        if (!status.path("agent").path("version").isTextual() || !status.path("ready").isBoolean()) {
            // Another server on that port (a stale http.url, a mistyped --url) answered 200 with some JSON: its
            // tables would be empty and its "NOT READY" a lie about an agent that was never asked.
            err.println("rdma-node-agent status: " + base.resolve("/status") + " is not an rdma-node-agent's status"
                    + " (no agent.version or ready); is " + base + " the agent's endpoint? (--url, <stateDir>/http.url)");
            return EXIT_UNREACHABLE;
        }
        out.print(json ? body + (body.endsWith("\n") ? "" : "\n") : StatusView.render(status));
        return healthy(status) ? ExitCode.OK.code : EXIT_NOT_READY;
    }

    /** Ready, and no check failing: a probe or a script asking "is this agent fine" gets one answer. */
    static boolean healthy(JsonNode status) {
        if (!status.path("ready").asBoolean()) {
            return false;
        }
        for (JsonNode check : status.path("health")) {
            if (!check.path("ok").asBoolean(true)) {
                return false;
            }
        }
        return true;
    }

    /** The URL the agent wrote when it bound; the default endpoint when there is none (or no config). */
    private URI fromStateDir(Path config) {
        try {
            Path urlFile = RuntimeSettings.read(config).stateDir().resolve("http.url");
            if (Files.isReadable(urlFile)) {
                return URI.create(Files.readString(urlFile).trim());
            }
        } catch (RuntimeException | IOException e) {
            // An unreadable config is not the question asked: try the default endpoint and say so if it fails.
            err.println("rdma-node-agent status: cannot read the state directory from " + config + " ("
                    + e.getMessage() + "); trying " + DEFAULT_URL);
        }
        return DEFAULT_URL;
    }

    private static String describe(IOException e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[index];
    }
}
