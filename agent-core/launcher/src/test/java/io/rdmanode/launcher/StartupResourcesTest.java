// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StartupResourcesTest {

    @TempDir
    Path dir;

    @Test
    void aPortAnotherProcessHoldsIsNamedWithItsKeyAndVariable() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = taken.getLocalPort();
            Path file = dir.resolve("agent.conf");

            var problem = StartupResources.httpPort(file,
                    ConfigFactory.parseString("agent.http { host = \"127.0.0.1\", port = " + port + " }"));

            assertThat(problem).hasValueSatisfying(line -> assertThat(line)
                    .contains("127.0.0.1:" + port, "agent.http.port", file.toString(), "RDMA_AGENT_HTTP_PORT")
                    .doesNotContain("\n"));
        }
    }

    @Test
    void aFreePortAnyPortAndAValueTheConfigCheckRefusesPassHere() {
        assertThat(StartupResources.httpPort(dir, ConfigFactory.parseString("agent.http.port = 0"))).isEmpty();
        assertThat(StartupResources.httpPort(dir, ConfigFactory.parseString("agent.http.port = 70000"))).isEmpty();
        assertThat(StartupResources.httpPort(dir, ConfigFactory.parseString("agent.http.port = x"))).isEmpty();
    }

    @Test
    void aStateDirectoryThatCannotBeMadeIsNamed() throws Exception {
        Path file = Files.writeString(dir.resolve("plain-file"), "");

        assertThat(StartupResources.stateDirectory(dir.resolve("agent.conf"), file.resolve("state")))
                .hasValueSatisfying(line -> assertThat(line).contains(file.resolve("state").toString(),
                        "agent.runtime.stateDir", "STATE_DIRECTORY"));
        assertThat(StartupResources.stateDirectory(dir.resolve("agent.conf"), dir.resolve("new/state"))).isEmpty();
        assertThat(dir.resolve("new/state")).isDirectory();
    }

    @Test
    void onlyAPredecessorServingTheSameAddressIsTakenOverAForeignHolderStillFailsTheStart() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = taken.getLocalPort();
            var config = ConfigFactory.parseString("agent.http { host = \"127.0.0.1\", port = " + port + " }");
            var settings = new RuntimeSettings(dir.resolve("state"), org.slf4j.event.Level.INFO,
                    io.rdmanode.launcher.logging.LogFormat.TEXT, java.time.Duration.ofSeconds(10), java.util.Set.of());
            var same = new PredecessorProbe.Predecessor(42, java.util.Map.of("http", "127.0.0.1:" + port));
            var elsewhere = new PredecessorProbe.Predecessor(42, java.util.Map.of("http", "127.0.0.1:1"));

            assertThat(StartupResources.firstUnavailable(dir, config, settings, java.util.Optional.of(same))).isEmpty();
            assertThat(StartupResources.firstUnavailable(dir, config, settings, java.util.Optional.of(elsewhere)))
                    .isPresent();
            assertThat(StartupResources.firstUnavailable(dir, config, settings, java.util.Optional.empty())).isPresent();
        }
    }
}
