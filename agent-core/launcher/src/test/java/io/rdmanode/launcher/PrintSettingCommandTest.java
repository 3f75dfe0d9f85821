// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrintSettingCommandTest {

    @TempDir
    Path dir;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return new PrintSettingCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(dir, args);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private Path config(String text) throws Exception {
        return Files.writeString(dir.resolve("agent.conf"), text);
    }

    @Test
    void printsTheAgentsStateDirNotALaterSectionsOne() throws Exception {
        Path file = config("""
                agent.runtime { stateDir = "/srv/agent" }
                cni { stateDir = "/srv/cni-state" }
                """);

        assertThat(run("--home", dir.toString(), "--print-setting", "agent.runtime.stateDir", "--config",
                file.toString())).as(this::err).isZero();

        assertThat(out()).isEqualTo("/srv/agent\n");
        assertThat(err()).isEmpty();
    }

    @Test
    void anyPathTheFileSetsPrintsAndObjectsComeAsJson() throws Exception {
        Path file = config("""
                cni { stateDir = "/srv/cni-state", installClient = false }
                """);

        assertThat(run("--print-setting", "cni.stateDir", "--config", file.toString())).as(this::err).isZero();
        assertThat(run("--print-setting", "cni", "--config", file.toString())).as(this::err).isZero();

        assertThat(out()).isEqualTo("/srv/cni-state\n{\"installClient\":false,\"stateDir\":\"/srv/cni-state\"}\n");
    }

    @Test
    void theLaunchersDefaultsApplyWhenTheFileSaysNothing() throws Exception {
        Path file = config("discovery { backend = sysfs }\n");

        assertThat(run("--print-setting", "agent.runtime.stateDir", "--config", file.toString())).as(this::err).isZero();
        assertThat(run("--print-setting", "agent.runtime.shutdownTimeout", "--config", file.toString())).as(this::err).isZero();
        assertThat(run("--print-setting", "agent.runtime.log.level", "--config", file.toString())).as(this::err).isZero();

        assertThat(out()).isEqualTo("/var/lib/rdma-node-agent\n10000ms\ninfo\n");
    }

    @Test
    void includesAndSubstitutionsResolveAsInTheAgent() throws Exception {
        Files.writeString(dir.resolve("runtime.conf"), "agent.runtime.stateDir = \"/from/include\"\n");
        System.setProperty("rdma.test.printSetting.dir", "/from/property");
        ConfigFactory.invalidateCaches(); // typesafe-config caches system properties; a real JVM has them at start
        try {
            Path file = config("""
                    include "runtime.conf"
                    agent.runtime.stateDir = ${?rdma.test.printSetting.unset}
                    cni.stateDir = ${rdma.test.printSetting.dir}"/cni"
                    """);

            assertThat(run("--print-setting", "agent.runtime.stateDir", "--config", file.toString())).as(this::err).isZero();
            assertThat(run("--print-setting", "cni.stateDir", "--config", file.toString())).as(this::err).isZero();

            assertThat(out()).isEqualTo("/from/include\n/from/property/cni\n");
        } finally {
            System.clearProperty("rdma.test.printSetting.dir");
            ConfigFactory.invalidateCaches();
        }
    }

    @Test
    void theDefaultFileIsTheHomesAgentConf() throws Exception {
        Files.createDirectories(dir.resolve("config"));
        Files.writeString(dir.resolve("config/agent.conf"), "agent.runtime.stateDir = /srv/home-default\n");

        assertThat(run("--print-setting", "agent.runtime.stateDir")).isZero();

        assertThat(out()).isEqualTo("/srv/home-default\n");
    }

    @Test
    void anUnknownKeyIsAClearErrorNamingThePathsItMayMean() throws Exception {
        Path file = config("""
                agent.runtime { stateDir = "/srv/agent" }
                cni { stateDir = "/srv/cni-state" }
                """);

        int exit = run("--print-setting", "stateDir", "--config", file.toString());

        assertThat(exit).isEqualTo(PrintSettingCommand.EXIT_NO_SETTING);
        assertThat(out()).isEmpty();
        assertThat(err()).contains("no setting 'stateDir' in " + file, "agent.runtime.stateDir or cni.stateDir");
    }

    @Test
    void exitsByTheTable() throws Exception {
        assertThat(run("--print-setting")).isEqualTo(ExitCode.USAGE.code);
        assertThat(err()).contains("--print-setting needs a value", "usage:");
        assertThat(run("--print-setting", "a", "--demo")).isEqualTo(ExitCode.USAGE.code);
        assertThat(run("--print-setting", "a", "--config", dir.resolve("none.conf").toString()))
                .isEqualTo(ExitCode.CONFIG_UNREADABLE.code);
        assertThat(err()).contains("none.conf does not exist");
        Path broken = config("agent.runtime { stateDir = \n");
        assertThat(run("--print-setting", "agent.runtime.stateDir", "--config", broken.toString()))
                .isEqualTo(ExitCode.CONFIG_INVALID.code);
        assertThat(err()).contains("agent.conf");
        assertThat(out()).isEmpty();
        // typesafe-config threw IllegalArgumentException, not ConfigException, for a signed backslash-u escape.
        Path escape = config("agent.runtime { stateDir = \"/var/\\u-01b\" }\n");
        assertThat(run("--print-setting", "agent.runtime.stateDir", "--config", escape.toString()))
                .isEqualTo(ExitCode.CONFIG_INVALID.code);
        assertThat(err()).contains(escape.toString(), "must be followed by four hex digits");
        assertThat(run("--print-setting", "--help")).isZero();
        assertThat(out()).startsWith("usage: rdma-node-agent --print-setting KEY");
    }
}
