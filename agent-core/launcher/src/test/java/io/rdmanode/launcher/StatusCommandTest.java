// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class StatusCommandTest {

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
