// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** gRPC's java.util.logging records reach the agent's log, in its format; its transport's INFO noise does not. */
class JulBridgeTest {

    private final ByteArrayOutputStream lines = new ByteArrayOutputStream();

    @AfterEach
    void restore() {
        LogSettings.configure(org.slf4j.event.Level.INFO, LogFormat.TEXT);
        LogSettings.redirect(System.err);
    }

    @Test
    void julRecordsBecomeAgentLogLinesAndGrpcTransportInfoIsDropped() {
        LogSettings.redirect(new PrintStream(lines, true, StandardCharsets.UTF_8));
        LogSettings.configure(org.slf4j.event.Level.INFO, LogFormat.JSON);
        JulBridge.install();

        Logger.getLogger("io.grpc.netty.NettyServerTransport").log(Level.INFO, "Transport failed",
                new IllegalStateException("garbage from a peer"));
        Logger.getLogger("io.grpc.internal.ServerImpl").log(Level.WARNING, "a {0} in it", "warning");
        Logger.getLogger("io.grpc.internal.ServerImpl").log(Level.SEVERE, "braces {} are no placeholder");
        Logger.getLogger("io.grpc.internal.ServerImpl").log(Level.FINE, "below the agent's level");

        String out = lines.toString(StandardCharsets.UTF_8);
        assertThat(out).doesNotContain("Transport failed").doesNotContain("garbage from a peer")
                .doesNotContain("below the agent's level");
        assertThat(out.lines()).hasSize(2);
        assertThat(out.lines().toList().get(0)).startsWith("{\"ts\":").contains("\"level\":\"WARN\"")
                .contains("\"msg\":\"a warning in it\"").contains("io.grpc.internal.ServerImpl");
        assertThat(out.lines().toList().get(1)).contains("\"level\":\"ERROR\"")
                .contains("\"msg\":\"braces {} are no placeholder\"");
    }
}
