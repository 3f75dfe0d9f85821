// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class StatusCommandTest {

    /**
     * Another server on the port (a stale {@code http.url}, a mistyped {@code --url}) answering 200 with JSON is
     * "not an agent" (5), not an agent that is "NOT READY" (1) with empty tables.
     */
    @Test
    void aServerThatIsNoAgentIsSaidToBeNone() throws Exception {
        HttpServer other = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        other.createContext("/status", exchange -> {
            byte[] body = "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        other.start();
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = new StatusCommand(new PrintStream(out), new PrintStream(err, true, StandardCharsets.UTF_8))
                    .run(Path.of("/nonexistent"), new String[] {"--url", "http://127.0.0.1:" + other.getAddress().getPort()});

            assertThat(exit).isEqualTo(StatusCommand.EXIT_UNREACHABLE);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("is not an rdma-node-agent's status");
            assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("NOT READY");
        } finally {
            other.stop(0);
        }
    }

    /** A --url that is no http URL is a usage error (2) naming the value; it was an uncaught exception (1). */
    @Test
    void aUrlThatIsNoHttpUrlIsAUsageError() {
        for (String bad : new String[] {"notaurl", "127.0.0.1:9456", "ftp://127.0.0.1/", "http://"}) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = new StatusCommand(new PrintStream(new ByteArrayOutputStream()),
                    new PrintStream(err, true, StandardCharsets.UTF_8)).run(Path.of("/nonexistent"),
                    new String[] {"--url", bad});
            assertThat(exit).as(bad).isEqualTo(ExitCode.USAGE.code);
            assertThat(err.toString(StandardCharsets.UTF_8)).as(bad).contains("rdma-node-agent status: --url")
                    .doesNotContain("Exception");
        }
    }
}
