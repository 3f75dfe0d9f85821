// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22: through the shipped script, as an operator meets it: a start that cannot get its HTTP port or state
 * directory stops at once with exit 5 and one line naming the key and variable; a missing configuration file is
 * exit 4 and an invalid one exit 6 (the table {@code --help} prints); an agent out of memory exits 3, the JVM's own
 * status, which no status of the agent's shares; {@code --help} names every environment variable the script reads.
 */
class ExitCodesIT {

    private static final Path SCRIPT = AgentProcessIT.DIST.resolve("bin/rdma-node-agent");

    @TempDir
    Path temp;

    @Test
    void aTakenHttpPortStopsTheStartWithFiveAndOneLineNamingKeyAndVariable() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = taken.getLocalPort();
            Path config = config("agent.http { host = \"127.0.0.1\", port = %d }".formatted(port));

            Run run = run(Map.of(), "--config", config.toString());

            assertThat(run.exit).as(run.output).isEqualTo(5);
            assertThat(run.output.strip().lines().toList()).as(run.output).hasSize(1);
            assertThat(run.output).contains("127.0.0.1:" + port, "agent.http.port", "RDMA_AGENT_HTTP_PORT",
                    config.toString());
        }
    }

    @Test
    void anUnusableStateDirectoryStopsTheStartWithFive() throws Exception {
        Path notADirectory = Files.writeString(temp.resolve("file"), "");
        Path config = Files.writeString(temp.resolve("agent.conf"), """
                agent.runtime.stateDir = "%s/state"
                agent.http.port = 0
                """.formatted(notADirectory));

        Run run = run(Map.of("RDMA_AGENT_CDS_DIR", ""), "--config", config.toString());

        assertThat(run.exit).as(run.output).isEqualTo(5);
        assertThat(run.output).contains("state directory", "agent.runtime.stateDir", "STATE_DIRECTORY");
    }

    @Test
    void aCniSocketOrFreeflowSocketThatCannotBeHadStopsTheStartWithFive() throws Exception {
        Path file = Files.writeString(temp.resolve("a-file"), "");
        String demo = Files.readString(AgentProcessIT.DIST.resolve("config/demo.conf"));
        Path cni = Files.writeString(temp.resolve("cni.conf"), demo + "\ncni.socket = \"" + file + "/cni.sock\"\n");
        Path freeflow = Files.writeString(temp.resolve("ff.conf"), demo + "\nfreeflow.socketDir = \"" + file + "/ff\"\n");
        Map<String, String> env = Map.of("RDMA_AGENT_HTTP_PORT", "0", "RDMA_AGENT_CDS_DIR", "");

        Run cniRun = run(env, "--demo", "--config", cni.toString());
        Run freeflowRun = run(env, "--demo", "--config", freeflow.toString());

        assertThat(cniRun.exit).as(cniRun.output).isEqualTo(5);
        assertThat(cniRun.output).contains("rdma-node-agent: cannot serve the CNI socket " + file + "/cni.sock",
                "change cni.socket", "(configuration " + cni + ")");
        assertThat(freeflowRun.exit).as(freeflowRun.output).isEqualTo(5);
        assertThat(freeflowRun.output).contains("rdma-node-agent: cannot open the Freeflow router socket " + file
                + "/ff/ffrouter", "change freeflow.socketDir");
    }

    @Test
    void aMissingFileIsFourAndAnInvalidOneSix() throws Exception {
        Run missing = run(Map.of(), "--config", temp.resolve("none.conf").toString());
        Path broken = Files.writeString(temp.resolve("broken.conf"), "agent.runtime { stateDir = \n");
        Run invalid = run(Map.of("RDMA_AGENT_CDS_DIR", ""), "--config", broken.toString());
        Run checkMissing = run(Map.of(), "check-config", temp.resolve("none.conf").toString());
        Run usage = run(Map.of(), "--no-such-option");

        assertThat(missing.exit).as(missing.output).isEqualTo(4);
        assertThat(missing.output).contains("none.conf does not exist", "--config");
        assertThat(invalid.exit).as(invalid.output).isEqualTo(6);
        assertThat(checkMissing.exit).as(checkMissing.output).isEqualTo(4);
        assertThat(usage.exit).as(usage.output).isEqualTo(2);
    }

    /**
     * A value only a component's check refuses (a range, here): the start used to log "config rejected ... no
     * configuration is in force" and run on built-in defaults (port 9456, /sys, kubelet's default directory)
     * until killed, where the README's table and the unit's RestartPreventExitStatus=6 promise exit 6.
     */
    @Test
    void aStartConfigurationRefusedByAComponentsCheckIsSixNotARunOnDefaults() throws Exception {
        String demo = Files.readString(AgentProcessIT.DIST.resolve("config/demo.conf"));
        assertThat(demo).contains("rdmaHcaMax = 100");
        Path config = Files.writeString(temp.resolve("range.conf"), demo.replaceFirst("rdmaHcaMax = 100",
                "rdmaHcaMax = 0"));

        Run run = run(Map.of("RDMA_AGENT_HTTP_PORT", "0", "RDMA_AGENT_CDS_DIR", ""), "--demo", "--config",
                config.toString());

        assertThat(run.exit).as(run.output).isEqualTo(6);
        assertThat(run.output).contains("rdmaHcaMax", "less than the minimum 1", "check-config " + config);
    }

    /**
     * The start script runs the JVM with {@code -XX:+ExitOnOutOfMemoryError}, whose status is 3: it must not read
     * as a configuration problem (it did, when an invalid configuration was 3), nor be stopped by the script's
     * own heap flags: {@code -XX:MinHeapSize=8m} beside a smaller {@code -Xmx} would stop the JVM before it
     * starts ("Incompatible minimum and maximum heap sizes", status 1).
     */
    @Test
    void anAgentOutOfMemoryExitsThreeWhichIsNotTheConfigurationsStatus() throws Exception {
        Run small = run(Map.of("JAVA_OPTS", "-Xmx6m", "RDMA_AGENT_HTTP_PORT", "0", "RDMA_AGENT_CDS_DIR", ""),
                "--demo", "--exit-when-ready");

        assertThat(small.exit).as(small.output).isEqualTo(3);
        assertThat(small.output).contains("Terminating due to java.lang.OutOfMemoryError")
                .doesNotContain("configuration is invalid", "Incompatible minimum and maximum heap sizes");
    }

    @Test
    void helpNamesEveryEnvironmentVariableTheScriptReadsAndTheExitTable() throws Exception {
        Run help = run(Map.of(), "--help");

        assertThat(help.exit).isZero();
        assertThat(scriptVariables()).isNotEmpty().allSatisfy(variable -> assertThat(help.output)
                .as("--help names %s", variable).containsPattern("\\b" + variable + "\\b"));
        assertThat(help.output).contains("exit status:", "  6  the configuration is invalid",
                "  3  the JVM ran out of heap or metaspace", "  5  a resource is unavailable");
        for (String command : List.of("status", "check-config")) {
            Run sub = run(Map.of(), command, "--help");
            assertThat(sub.exit).as(command).isZero();
            assertThat(sub.output).startsWith("usage: rdma-node-agent " + command);
        }
    }

    /** Upper-case names the script expands ({@code $NAME}, {@code ${NAME...}}), less the ones it sets itself. */
    private static TreeSet<String> scriptVariables() throws Exception {
        String script = Files.readString(SCRIPT);
        TreeSet<String> read = new TreeSet<>();
        Matcher m = Pattern.compile("\\$\\{?([A-Z][A-Z0-9_]*)").matcher(script);
        while (m.find()) {
            read.add(m.group(1));
        }
        return read;
    }

    private Path config(String text) throws Exception {
        return Files.writeString(temp.resolve("agent.conf"), """
                agent.runtime.stateDir = "%s"
                %s
                """.formatted(temp.resolve("state"), text));
    }

    private record Run(int exit, String output) {
    }

    private static Run run(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(SCRIPT.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> all = new HashMap<>(env);
        builder.environment().remove("RDMA_AGENT_HTTP_PORT");
        builder.environment().putAll(all);
        Process p = builder.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("no exit within 60 s: " + out);
        }
        return new Run(p.exitValue(), out);
    }
}
