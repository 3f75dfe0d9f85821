// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code rdma-node-agent check-config} through the shipped start script: what an operator runs on a ConfigMap
 * before rolling it out. The same file is accepted or rejected, with the same lines, as by a running agent.
 */
class CheckConfigIT {

    static final Path DIST = ShippedConfigIT.DIST.toAbsolutePath();

    @TempDir
    Path temp;

    @ParameterizedTest
    @ValueSource(strings = {"config/agent.conf", "config/demo.conf", "kubernetes/daemonset.yaml"})
    void shippedConfigurationsPass(String shipped) throws Exception {
        Path file = DIST.resolve(shipped);
        if (shipped.endsWith(".yaml")) {
            file = temp.resolve("configmap-agent.conf");
            Files.writeString(file, ShippedConfigIT.configMapEntry(DIST.resolve(shipped), "agent.conf"));
        }

        // demo.conf is read by `--demo --config FILE`, and checked the same way.
        Result result = shipped.endsWith("demo.conf") ? run("check-config", "--demo", file.toString())
                : run("check-config", file.toString());

        assertThat(result.exit).as(result.out + result.err).isZero();
        assertThat(result.out).isEqualTo(file + ": ok (0 error(s), 0 warning(s))\n");
    }

    /**
     * demo.conf names its paths through {@code ${rdma.agent.stateDir}}, which nothing but {@code --demo} defines when
     * the start reads the file: started without {@code --demo} the agent refuses it (exit 6), and the check, which
     * said ok (operator probe), refuses it too and says why.
     */
    @Test
    void aFileTheStartRefusesForAnUndefinedSubstitutionIsRefused() throws Exception {
        Path file = DIST.resolve("config/demo.conf");

        Result check = run("check-config", file.toString());
        Result start = run("--config", file.toString());

        assertThat(check.exit).as(check.out + check.err).isEqualTo(6);
        assertThat(check.out).contains("Could not resolve substitution to a value: ${rdma.agent.stateDir}")
                .contains("check-config --demo");
        assertThat(start.exit).as(start.out + start.err).isEqualTo(6);
        assertThat(start.err).contains("Could not resolve substitution to a value: ${rdma.agent.stateDir}");
    }

    @Test
    void badEditIsRejectedWithFileLineKeyAndExitOne() throws Exception {
        Path file = temp.resolve("agent.conf");
        Files.writeString(file, """
                agent.http { port = 99999 }
                discovery { backend = verbz, rescanIntervall = 30s }
                deviceplugin.shared.pools = [
                  { name = hca_a, rdmaHcaMax = 0, selectors { vendors = ["15b3"] } }
                ]
                """);

        Result result = run("check-config", file.toString());

        assertThat(result.exit).isEqualTo(6);
        assertThat(result.out.lines()).contains(
                file + ":1:14: agent.http.port: 99999 is not allowed: greater than the maximum 65535",
                file + ":2:13: discovery.backend: 'verbz' is not one of [sysfs, verbs]",
                file + ":4:19: deviceplugin.shared.pools[hca_a].rdmaHcaMax: 0 is not allowed: less than the minimum 1",
                file + ": invalid (4 error(s), 0 warning(s))");
        assertThat(result.out).contains("every key, its default and accepted values: ")
                .containsPattern("accepted values: \\S+/config/agent\\.conf\n");
        assertThat(result.out).contains(file + ":2:30: discovery.rescanIntervall: unknown key (did you mean rescanInterval?)");
    }

    /**
     * freeflow.deviceSelectors are the pools' selectors: the deviceplugin bundle's check judges their values (the
     * freeflow bundle imports none of its rules), each at its own line; freeflow's own check refuses them beside a
     * device.
     */
    @Test
    void freeflowDeviceSelectorsAreJudgedByThePoolsRulesAtTheirLines() throws Exception {
        Path file = temp.resolve("agent.conf");
        Files.writeString(file, """
                freeflow {
                  transport = verbs
                  device = rxe0
                  deviceSelectors { ifNames = [ens1f0]
                    vendors = [mellanox] }
                }
                """);

        Result result = run("check-config", file.toString());

        assertThat(result.exit).as(result.out + result.err).isEqualTo(6);
        assertThat(result.out.lines()).anySatisfy(l -> assertThat(l).startsWith(file + ":3:").endsWith(
                "freeflow.device: freeflow.device and freeflow.deviceSelectors exclude each other; name the device or"
                        + " select it"));
        assertThat(result.out.lines()).anySatisfy(l -> assertThat(l).startsWith(file + ":5:").endsWith(
                "freeflow.deviceSelectors.vendors: vendors: 'mellanox' is not a PCI id (hex, e.g. 15b3)"));
        assertThat(result.out).contains(file + ": invalid (2 error(s), 0 warning(s))");
    }

    @Test
    void syntaxErrorsAndMissingFilesAreReported() throws Exception {
        Path broken = temp.resolve("broken.conf");
        Files.writeString(broken, "discovery { backend = sysfs\n");

        Result syntax = run("check-config", broken.toString());
        Result missing = run("check-config", temp.resolve("absent.conf").toString());

        assertThat(syntax.exit).isEqualTo(6);
        assertThat(syntax.out).startsWith(broken + ":").containsPattern(":\\d+:\\d+: syntax: ").contains("invalid (1 error(s)");
        assertThat(missing.exit).isEqualTo(4);
        assertThat(missing.err).contains("absent.conf does not exist");
    }

    /**
     * A file that includes itself is refused naming the cycle: the check ended with OutOfMemoryError (exit 3), as a
     * live edit ended the agent (operator probe).
     */
    @Test
    void anIncludeCycleIsRefused() throws Exception {
        Path cycle = temp.resolve("cycle.conf");
        Files.writeString(cycle, "discovery { backend = sysfs }\ninclude \"cycle.conf\"\n");

        Result included = run("check-config", cycle.toString());

        assertThat(included.exit).as(included.out + included.err).isEqualTo(6);
        assertThat(included.out).contains("include cycle");
    }

    @Test
    void aSectionNoBundleDeclaresIsAWarningThatStrictTurnsIntoAFailure() throws Exception {
        Path file = temp.resolve("typo.conf");
        Files.writeString(file, "deviceplugin.sharde.pools = []\n");

        Result lenient = run("check-config", file.toString());
        Result strict = run("check-config", "--strict", file.toString());

        assertThat(lenient.exit).isZero();
        assertThat(lenient.out).contains("warning: " + file + ":1:14: deviceplugin.sharde: no installed bundle declares");
        assertThat(strict.exit).isEqualTo(6);
    }

    /**
     * An optional bundle switched on by the file is judged by its own validator, as the agent started with that
     * file would install and activate it: the DRA driver refuses an enabled section without a node name.
     */
    @Test
    void anOptionalBundleSwitchedOnChecksItsOwnSection() throws Exception {
        Path file = temp.resolve("dra.conf");
        Files.writeString(file, """
                agent.bundles.dra.enabled = true
                dra {
                  enabled = true
                  registryDir = "relative/plugins_registry"
                }
                """);

        Result result = run("check-config", file.toString());

        assertThat(result.exit).as(result.out + result.err).isEqualTo(6);
        assertThat(result.out).contains(file + ":2:1: dra.nodeName: required when enabled = true")
                .contains(file + ":4:3: dra.registryDir: 'relative/plugins_registry' is not an absolute path");
    }

    /**
     * {@code dra.pools}, a list of objects inside the driver's one configuration: the bridge maps its elements
     * (typed, unknown keys refused at their line) and the driver's validator refuses a duplicate pool at its line.
     */
    @Test
    void draPoolsAreMappedAndCheckedAtTheirLines() throws Exception {
        String pools = """
                agent.bundles.dra.enabled = true
                dra {
                  enabled = true
                  nodeName = node-a
                  pools = [
                    { name = vfs-a, selectors { pfNames = ["ens1f0#0-7"] } }
                    { name = %s, selectors { %s = ["ens2f0#0-7"] } }
                  ]
                }
                """;
        Path good = temp.resolve("dra-pools.conf");
        Files.writeString(good, pools.formatted("vfs-b", "pfNames"));
        Path duplicate = temp.resolve("dra-pools-duplicate.conf");
        Files.writeString(duplicate, pools.formatted("vfs-a", "pfNames"));
        Path typo = temp.resolve("dra-pools-typo.conf");
        Files.writeString(typo, pools.formatted("vfs-b", "pfNamez"));

        Result passes = run("check-config", "--strict", good.toString());
        Result twice = run("check-config", duplicate.toString());
        Result misspelt = run("check-config", typo.toString());

        assertThat(passes.exit).as(passes.out + passes.err).isZero();
        assertThat(twice.exit).as(twice.out + twice.err).isEqualTo(6);
        assertThat(twice.out).contains(duplicate + ":7:").contains("dra.pools.1.name: duplicate pool name 'vfs-a'");
        assertThat(misspelt.exit).as(misspelt.out + misspelt.err).isEqualTo(6);
        assertThat(misspelt.out).contains(typo + ":7:")
                .contains("dra.pools.1.selectors.pfNamez: unknown key (did you mean pools.N.selectors.pfNames?)");
    }

    /** The DaemonSet's two commented DRA lines, uncommented as its comment says, pass with the pod's NODE_NAME. */
    @Test
    void theDaemonSetsDraLinesUncommentedPass() throws Exception {
        String hocon = ShippedConfigIT.configMapEntry(DIST.resolve("kubernetes/daemonset.yaml"), "agent.conf");
        String enabled = hocon.replace("# agent.bundles.dra.enabled = true", "agent.bundles.dra.enabled = true")
                .replace("# dra { enabled = true", "dra { enabled = true");
        assertThat(enabled).isNotEqualTo(hocon).contains("\nagent.bundles.dra.enabled = true");
        Path file = temp.resolve("configmap-dra.conf");
        Files.writeString(file, enabled);

        Result withNode = run(Map.of("NODE_NAME", "node-a"), "check-config", "--strict", file.toString());
        Result withoutNode = run(Map.of(), "check-config", file.toString());

        assertThat(withNode.exit).as(withNode.out + withNode.err).isZero();
        assertThat(withoutNode.out).contains("dra.nodeName: required when enabled = true");
    }

    @Test
    void usageErrorsExitTwo() throws Exception {
        assertThat(run("check-config").exit).isEqualTo(2);
        assertThat(run("check-config", "a.conf", "b.conf").err).contains("unexpected argument 'b.conf'");
    }

    private record Result(int exit, String out, String err) {
    }

    private Result run(String... args) throws Exception {
        return run(Map.of(), args);
    }

    private Result run(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(DIST.resolve("bin/rdma-node-agent").toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(temp, "out", ".txt");
        Path err = Files.createTempFile(temp, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().remove("NODE_NAME");
        builder.environment().putAll(env);
        Process process = builder.start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
