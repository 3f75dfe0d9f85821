// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigMapperTest {

    static final String FILE = "/etc/rdma-node-agent/agent.conf";

    /** What the health bundle, a test probe and a factory pool component declare. */
    static final ConfigSchema SCHEMA = new ConfigSchema(Map.of(
            "io.rdmanode.agent.http", new PidSchema("io.rdmanode.agent.http", false, "io.rdmanode.health", Map.of(
                    "host", AttributeSchema.of("host", AttributeType.STRING),
                    "port", new AttributeSchema("port", AttributeType.INTEGER, 0, false, List.of(),
                            range(0, 65535)),
                    "threads", AttributeSchema.of("threads", AttributeType.INTEGER))),
            "io.rdmanode.probe", new PidSchema("io.rdmanode.probe", false, "io.rdmanode.probe", Map.of(
                    "greeting", new AttributeSchema("greeting", AttributeType.STRING, 0, true, List.of(), v -> null),
                    "size", new AttributeSchema("size", AttributeType.INTEGER, 0, false, List.of(), range(1, 64)),
                    "interval", AttributeSchema.of("interval", AttributeType.LONG),
                    "tags", new AttributeSchema("tags", AttributeType.STRING, 100, false, List.of(), v -> null),
                    "mode", new AttributeSchema("mode", AttributeType.STRING, 0, false, List.of("fast", "slow"),
                            v -> null))),
            "io.rdmanode.deviceplugin.shared.pools", new PidSchema("io.rdmanode.deviceplugin.shared.pools", true,
                    "io.rdmanode.deviceplugin.shared", Map.of(
                    "rdmaHcaMax", new AttributeSchema("rdmaHcaMax", AttributeType.INTEGER, 0, false, List.of(),
                            range(1, 100000)),
                    "selectors.vendors", new AttributeSchema("selectors.vendors", AttributeType.STRING, 100, false,
                            List.of(), v -> null),
                    "sizes", new AttributeSchema("sizes", AttributeType.LONG, 100, false, List.of(), v -> null))),
            // A singleton with a list of structured entries (the DRA driver's pools): element keys declared with N.
            "io.rdmanode.lists", new PidSchema("io.rdmanode.lists", false, "io.rdmanode.lists", Map.of(
                    "pool", AttributeSchema.of("pool", AttributeType.STRING),
                    "pools.N.name", AttributeSchema.of("pools.N.name", AttributeType.STRING),
                    "pools.N.size", new AttributeSchema("pools.N.size", AttributeType.INTEGER, 0, false, List.of(),
                            range(1, 64)),
                    "pools.N.selectors.vendors", new AttributeSchema("pools.N.selectors.vendors",
                            AttributeType.STRING, 100, false, List.of(), v -> null)))));

    static java.util.function.Function<String, String> range(long min, long max) {
        return v -> {
            long value = Long.parseLong(v);
            return value < min ? "below the minimum " + min : value > max ? "above the maximum " + max : "";
        };
    }

    static Mapping map(String hocon) {
        Config config = ConfigFactory.parseString(hocon, ConfigParseOptions.defaults().setOriginDescription(FILE))
                .resolve();
        return ConfigMapper.map(config, FILE, SCHEMA, Set.of("health", "config", "probe", "freeflow"));
    }

    static List<String> errors(String hocon) {
        return map(hocon).errors().stream().map(Problem::toString).toList();
    }

    @Test
    void objectAtPathBecomesTheConfigurationOfPidWithTypedValues() {
        Mapping mapping = map("""
                agent.http { port = 9456, host = "0.0.0.0" }
                probe {
                  greeting = hello
                  size = 8
                  interval = 2s
                  tags = [a, b]
                }
                """);

        assertThat(mapping.errors()).isEmpty();
        assertThat(mapping.configurations()).extracting(TargetConfiguration::displayPid)
                .containsExactlyInAnyOrder("io.rdmanode.agent.http", "io.rdmanode.probe");
        Map<String, Object> probe = find(mapping, "io.rdmanode.probe").properties();
        assertThat(probe).containsEntry("greeting", "hello").containsEntry("size", 8)
                .containsEntry("interval", 2000L);
        assertThat((String[]) probe.get("tags")).containsExactly("a", "b");
        assertThat(find(mapping, "io.rdmanode.agent.http").properties()).containsEntry("port", 9456)
                .containsEntry("host", "0.0.0.0");
    }

    @Test
    void listOfNamedObjectsBecomesFactoryConfigurationsWithDottedNestedKeys() {
        Mapping mapping = map("""
                deviceplugin.shared.pools = [
                  { name = hca_a, rdmaHcaMax = 100, selectors { vendors = ["15b3"] } }
                  { name = hca_b, sizes = [1KiB, 2] }
                ]
                """);

        assertThat(mapping.errors()).isEmpty();
        assertThat(mapping.configurations()).extracting(TargetConfiguration::displayPid).containsExactly(
                "io.rdmanode.deviceplugin.shared.pools~hca_a", "io.rdmanode.deviceplugin.shared.pools~hca_b");
        TargetConfiguration a = mapping.configurations().get(0);
        assertThat(a.path()).isEqualTo("deviceplugin.shared.pools[hca_a]");
        assertThat(a.properties()).containsEntry("name", "hca_a").containsEntry("rdmaHcaMax", 100);
        assertThat((String[]) a.properties().get("selectors.vendors")).containsExactly("15b3");
        assertThat((Long[]) mapping.configurations().get(1).properties().get("sizes")).containsExactly(1024L, 2L);
        assertThat(a.properties()).containsEntry(".index", 0);
        assertThat(mapping.configurations().get(1).properties()).containsEntry(".index", 1);
    }

    @Test
    void aListOfObjectsInsideAConfigurationBecomesIndexedPropertiesWhereTheElementsAreDeclared() {
        Mapping mapping = map("""
                lists {
                  pool = legacy
                  pools = [
                    { name = a, selectors { vendors = ["15b3"] } }
                    { name = b, size = 4 }
                  ]
                }
                """);

        assertThat(mapping.errors()).isEmpty();
        TargetConfiguration lists = find(mapping, "io.rdmanode.lists");
        assertThat(lists.properties()).containsEntry("pool", "legacy").containsEntry("pools.0.name", "a")
                .containsEntry("pools.1.name", "b").containsEntry("pools.1.size", 4)
                .doesNotContainKey("pools").doesNotContainKey("pools.N.name");
        assertThat((String[]) lists.properties().get("pools.0.selectors.vendors")).containsExactly("15b3");
        assertThat(lists.origin("pools.1.size").line()).isEqualTo(5);
    }

    @Test
    void listElementsAreCheckedLikeAnyValueAndTheirKeysOnlyInsideTheList() {
        assertThat(errors("""
                lists {
                  pools = [
                    { name = a, size = 100 }
                    { name = b, sise = 4 }
                    plain
                  ]
                }
                """)).containsExactlyInAnyOrder(
                FILE + ":3: lists.pools.0.size: 100 is not allowed: above the maximum 64",
                FILE + ":4: lists.pools.1.sise: unknown key (did you mean pools.N.size?); io.rdmanode.lists accepts"
                        + " [pool, pools.N.name, pools.N.selectors.vendors, pools.N.size]",
                FILE + ":5: lists.pools.2: expected an object { ... } as list element, found 'plain'");
        assertThat(errors("lists { pools.N.name = literal }")).singleElement().asString()
                .contains("lists.pools.N.name: unknown key");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "interval = 500ms | 500",
        "interval = 5s    | 5000",
        "interval = 2m    | 120000",
        "interval = 42    | 42",
        "interval = \"7\" | 7",
    })
    void integersAcceptPlainNumbersAndDurationsInMilliseconds(String line, long expected) {
        Mapping mapping = map("probe { greeting = x, " + line + " }");
        assertThat(mapping.errors()).isEmpty();
        assertThat(find(mapping, "io.rdmanode.probe").properties()).containsEntry("interval", expected);
    }

    @Test
    void unknownKeyNamesFileLineKeyAndTheNearestKnownKey() {
        assertThat(errors("""
                probe {
                  greting = hi
                }
                """)).contains(FILE + ":2: probe.greting: unknown key (did you mean greeting?); io.rdmanode.probe"
                + " accepts [greeting, interval, mode, size, tags]");
    }

    @Test
    void valueOutOfRangeIsRejectedWithTheComponentsOwnLimit() {
        assertThat(errors("probe { greeting = x\n size = 100 }"))
                .containsExactly(FILE + ":2: probe.size: 100 is not allowed: above the maximum 64");
    }

    @Test
    void wrongTypeIsRejected() {
        assertThat(errors("probe { greeting = x, size = lots }")).containsExactly(FILE
                + ":1: probe.size: expected an integer (or a duration like 500ms/5s, read as milliseconds, or a size"
                + " like 64MiB), found 'lots'");
        assertThat(errors("probe { greeting = x, size = 2.5 }"))
                .containsExactly(FILE + ":1: probe.size: expected an integer, found 2.5");
        assertThat(errors("probe { greeting = [x] }"))
                .containsExactly(FILE + ":1: probe.greeting: expected a string, found a list");
        assertThat(errors("probe { greeting = x, tags = a }"))
                .containsExactly(FILE + ":1: probe.tags: expected a list of strings, e.g. [a, b], found 'a'");
        assertThat(errors("agent.http.port = 99999999999"))
                .containsExactly(FILE + ":1: agent.http.port: 99999999999 does not fit integer (-2147483648..2147483647)");
    }

    @Test
    void valueOutsideTheOptionsIsRejected() {
        assertThat(errors("probe { greeting = x, mode = medium }"))
                .containsExactly(FILE + ":1: probe.mode: 'medium' is not one of [fast, slow]");
    }

    @Test
    void missingRequiredKeyIsRejected() {
        assertThat(errors("probe { size = 2 }")).containsExactly(FILE
                + ":1: probe.greeting: required key is missing (io.rdmanode.probe has no default for it)");
    }

    @Test
    void factoryElementsNeedAValidUniqueName() {
        assertThat(errors("""
                deviceplugin.shared.pools = [
                  { rdmaHcaMax = 1 }
                  { name = "bad name" }
                  { name = a }
                  { name = a }
                  hello
                ]
                """)).containsExactly(
                FILE + ":2: deviceplugin.shared.pools[0].name: required: every element needs a name",
                FILE + ":3: deviceplugin.shared.pools[1].name: 'bad name' is not a valid name (letters, digits, '_',"
                        + " '.', '-'; at most 63; starts with a letter or digit)",
                FILE + ":5: deviceplugin.shared.pools[3].name: duplicate name 'a'",
                FILE + ":6: deviceplugin.shared.pools[4]: expected an object with a name, found 'hello'");
    }

    @Test
    void shapeMismatchIsRejected() {
        assertThat(errors("probe = [1, 2]")).containsExactly(
                FILE + ":1: probe: expected an object { ... } configuring io.rdmanode.probe, found a list");
        assertThat(errors("deviceplugin.shared.pools { name = a }")).containsExactly(FILE
                + ":1: deviceplugin.shared.pools: expected a list of objects [ { name = ..., ... } ], one per"
                + " io.rdmanode.deviceplugin.shared.pools instance, found an object");
    }

    @Test
    void unknownAgentSectionIsAnErrorButAnUninstalledBundlesSectionIsKeptWithAWarning() {
        assertThat(errors("agent.htp.port = 1")).containsExactly(FILE
                + ":1: agent.htp: unknown key (did you mean agent.http?)");

        Mapping mapping = map("freeflow { router.shmSize = 64MiB }\nprobe.greeting = x");
        assertThat(mapping.errors()).isEmpty();
        assertThat(mapping.unclaimed()).containsExactly("freeflow");
        assertThat(mapping.warnings()).extracting(Problem::toString).containsExactly(FILE + ":1: freeflow: no"
                + " installed bundle declares configuration io.rdmanode.freeflow; kept, and applied when a bundle"
                + " that declares it is installed");
    }

    @Test
    void bundleSwitchesAreReadAndTheConfigBundleCannotBeSwitchedOff() {
        Mapping mapping = map("agent.bundles { probe.enabled = false, freeflow { enabled = yes } }");
        assertThat(mapping.errors()).isEmpty();
        assertThat(mapping.bundleSwitches()).containsEntry("probe", false).containsEntry("freeflow", true);

        assertThat(errors("agent.bundles.config.enabled = false")).containsExactly(FILE + ":1:"
                + " agent.bundles.config.enabled: the config bundle cannot be disabled: it applies this file, so"
                + " nothing could enable it again");
        assertThat(errors("agent.bundles.probe { enabled = maybe, start = now }")).containsExactlyInAnyOrder(
                FILE + ":1: agent.bundles.probe.enabled: expected true or false, found 'maybe'",
                FILE + ":1: agent.bundles.probe.start: unknown key; a bundle entry accepts [enabled]");
        assertThat(map("agent.bundles.prob.enabled = false").warnings()).extracting(Problem::toString)
                .containsExactly(FILE + ":1: agent.bundles.prob: no installed bundle is named 'prob' (did you mean"
                        + " probe?); installed: [config, freeflow, health, probe]; the switch applies when it is"
                        + " installed");
    }

    @Test
    void runtimeSectionIsCheckedButNotPushedToConfigAdmin() {
        Mapping mapping = map("agent.runtime { stateDir = /tmp/x, log { level = debug, format = json }, "
                + "shutdownTimeout = 3s }");
        assertThat(mapping.errors()).isEmpty();
        assertThat(mapping.configurations()).isEmpty();
        assertThat(mapping.runtime()).containsEntry("shutdownTimeout", 3000L).containsEntry("log.level", "debug");

        assertThat(errors("agent.runtime { log.level = loud, stateDirectory = /x }")).containsExactly(
                FILE + ":1: agent.runtime.log.level: 'loud' is not one of [error, warn, info, debug, trace]",
                FILE + ":1: agent.runtime.stateDirectory: unknown key (did you mean stateDir?); agent.runtime"
                        + " accepts [log.format, log.level, shutdownTimeout, stateDir]");
    }

    @Test
    void everyProblemOfTheFileIsReportedAtOnce() {
        assertThat(errors("""
                agent.http.port = -1
                probe { size = 0, colour = red }
                """)).hasSize(4);
    }

    static TargetConfiguration find(Mapping mapping, String pid) {
        return mapping.configurations().stream().filter(c -> c.displayPid().equals(pid)).findFirst().orElseThrow();
    }

    /** "agent.http".threads walked as the path agent.http replaced the real section: its port was dropped. */
    @Test
    void aQuotedKeyWithDotsAboveTheSectionsIsRefusedNotTakenForAPath() {
        assertThat(errors("agent.http.port = 9590\n\"agent.http\".threads = 3\n")).singleElement().asString()
                .contains(":2: \"agent.http\": a quoted key with dots is one key, not a path: write agent.http"
                        + " without the quotes");
        assertThat(errors("agent { \"http.threads\" = 3 }\n")).singleElement().asString()
                .contains("agent.http.threads without the quotes");
    }
}
