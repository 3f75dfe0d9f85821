// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * An agent.conf of arbitrary bytes through the reload's parse and map steps ({@link HoconFile#parse}, then
 * {@link ConfigMapper#map} against a schema shaped like the components' MetaType: singletons, a factory pool,
 * ranges, options, lists, a required key). Contract: the file is either refused with problems that name the
 * file and say why, or mapped; a mapped file's errors and warnings all carry a message, and when it has no
 * errors every property it would hand ConfigAdmin is declared by the schema, of the declared Java type, within
 * the declared range and options. No unchecked exception or error escapes: the reload thread would die with it.
 * Corpus: {@code src/test/resources/io/rdmanode/config/internal/HoconMappingFuzzTestInputs/mapsOrRefuses/}
 * (the shipped agent.conf and demo.conf among the seeds).
 */
class HoconMappingFuzzTest {

    private static final String FILE = "/etc/rdma-node-agent/agent.conf";
    private static final Map<String, String> FRAMEWORK = Map.of("rdma.agent.stateDir", "/var/lib/rdma-node-agent");
    private static final Set<String> INSTALLED = Set.of("health", "config", "probe", "freeflow", "cni",
            "deviceplugin-shared");
    private static final ConfigSchema SCHEMA = new ConfigSchema(Map.of(
            "io.rdmanode.agent.http", new PidSchema("io.rdmanode.agent.http", false, "io.rdmanode.health", Map.of(
                    "host", AttributeSchema.of("host", AttributeType.STRING),
                    "port", attribute("port", AttributeType.INTEGER, 0, List.of(), range(0, 65535)),
                    "idleTimeout", attribute("idleTimeout", AttributeType.LONG, 0, List.of(), range(1, 600000)))),
            "io.rdmanode.probe", new PidSchema("io.rdmanode.probe", false, "io.rdmanode.probe", Map.of(
                    "greeting", new AttributeSchema("greeting", AttributeType.STRING, 0, true, List.of(), v -> null),
                    "enabled", AttributeSchema.of("enabled", AttributeType.BOOLEAN),
                    "ratio", AttributeSchema.of("ratio", AttributeType.DOUBLE),
                    "tags", attribute("tags", AttributeType.STRING, 100, List.of(), v -> null),
                    "mode", attribute("mode", AttributeType.STRING, 0, List.of("fast", "slow"), v -> null))),
            "io.rdmanode.deviceplugin.shared.pools", new PidSchema("io.rdmanode.deviceplugin.shared.pools", true,
                    "io.rdmanode.deviceplugin.shared", Map.of(
                    "rdmaHcaMax", attribute("rdmaHcaMax", AttributeType.INTEGER, 0, List.of(), range(1, 100000)),
                    "selectors.vendors", attribute("selectors.vendors", AttributeType.STRING, 100, List.of(),
                            v -> null),
                    "healthPollInterval", attribute("healthPollInterval", AttributeType.LONG, 0, List.of(),
                            range(100, 3600000)),
                    "sizes", attribute("sizes", AttributeType.LONG, 100, List.of(), v -> null)))));

    @FuzzTest
    void mapsOrRefuses(byte[] file) {
        HoconFile.Parsed parsed = HoconFile.parse(Path.of(FILE), file, FRAMEWORK);

        assertThat(parsed.checksum()).hasSize(16);
        if (!parsed.ok()) {
            assertThat(parsed.config()).isNull();
            assertThat(parsed.problems()).allSatisfy(HoconMappingFuzzTest::explains);
            return;
        }
        Mapping mapping = ConfigMapper.map(parsed.config(), FILE, SCHEMA, INSTALLED);
        List<Problem> all = new ArrayList<>(mapping.errors());
        all.addAll(mapping.warnings());
        assertThat(all).allSatisfy(HoconMappingFuzzTest::explains);
        if (mapping.valid()) {
            mapping.configurations().forEach(HoconMappingFuzzTest::declared);
        }
    }

    private static void explains(Problem p) {
        assertThat(p.file()).isNotNull();
        assertThat(p.message()).isNotBlank();
        assertThat(p.toString()).isNotBlank();
    }

    /** What ConfigAdmin would get: declared keys, declared types, values the schema accepts. */
    private static void declared(TargetConfiguration c) {
        PidSchema pid = SCHEMA.pids().get(c.pid());
        if (pid == null) {
            return;                                           // a section of a bundle the schema does not list
        }
        assertThat(c.isFactory()).isEqualTo(pid.factory());
        c.properties().forEach((key, value) -> {
            if (key.startsWith(".") || c.isFactory() && key.equals("name")) {
                return;                                       // the bridge's own (.source) and the entry's name
            }
            AttributeSchema a = pid.attributes().get(key);
            assertThat(a).as("property %s of %s", key, c.displayPid()).isNotNull();
            assertThat(value).isNotNull();
            if (a.isList()) {
                assertThat(value.getClass().isArray()).as("list %s", key).isTrue();
                for (Object element : (Object[]) value) {
                    accepted(a, element);
                }
            } else {
                accepted(a, value);
            }
        });
    }

    private static void accepted(AttributeSchema a, Object value) {
        assertThat(value).isInstanceOf(switch (a.type()) {
            case LONG -> Long.class;
            case INTEGER -> Integer.class;
            case BOOLEAN -> Boolean.class;
            case DOUBLE -> Double.class;
            default -> String.class;
        });
        assertThat(a.validate(String.valueOf(value))).as("%s = %s", a.id(), value).isEmpty();
        if (!a.options().isEmpty()) {
            assertThat(a.options()).contains(String.valueOf(value));
        }
    }

    private static AttributeSchema attribute(String id, AttributeType type, int cardinality, List<String> options,
                                             Function<String, String> validator) {
        return new AttributeSchema(id, type, cardinality, false, options, validator);
    }

    /** Felix MetaType's answer for a value outside min/max, or for one that is not a number at all. */
    private static Function<String, String> range(long min, long max) {
        return v -> {
            long value;
            try {
                value = Long.parseLong(v);
            } catch (NumberFormatException e) {
                return "%not a number";
            }
            return value < min ? "%less than minimum" : value > max ? "%greater than maximum" : "";
        };
    }
}
