// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import java.util.Map;

/**
 * Resolves a parsed agent configuration file the same way in the launcher and in the config bundle:
 * substitutions ({@code ${rdma.agent.stateDir}}, {@code ${?PORT}}) resolve against the given properties (the
 * framework's {@code rdma.agent.*}), then JVM system properties, then the environment, and only the file's own
 * keys come out.
 *
 * @since 1.0
 */
public final class Hocon {

    /**
     * The largest configuration file the launcher and the config bundle read, in bytes (1 MiB). The largest
     * realistic file, hundreds of pools, is well under 100 KB; a file far over it is not a configuration, and
     * parsed whole it can exhaust a small heap (a 12 MB file killed an agent with 64 MiB of heap).
     *
     * @since 1.7
     */
    public static final int MAX_FILE_BYTES = 1 << 20;

    private Hocon() {
    }

    /**
     * Why a configuration file of {@code size} bytes is refused, to follow {@code "FILE: "}.
     *
     * @since 1.7
     */
    public static String tooLarge(long size) {
        return "the file is " + size + " bytes, over the limit of " + MAX_FILE_BYTES
                + " bytes (1 MiB) for a configuration file";
    }

    /** {@code properties} first, then JVM system properties, then environment variables. */
    public static Config substitutions(Map<String, String> properties) {
        return ConfigFactory.parseMap(properties, "framework properties")
                .withFallback(ConfigFactory.systemProperties()).withFallback(ConfigFactory.systemEnvironment());
    }

    /**
     * {@code parsed.resolveWith(substitutions)} would be the obvious call, but typesafe-config 1.4 fails on it
     * for the common override idiom {@code port = 9456, port = ${?PORT}} ("replace in parent not possible").
     * Resolving with the substitutions as a fallback works; the file's own top-level keys are then taken back
     * out, so environment variables never appear as configuration. A key whose only value is an unset optional
     * substitution ({@code x = ${?UNSET}}) is absent from the result.
     *
     * @throws com.typesafe.config.ConfigException when a required substitution is missing or the file is invalid
     */
    public static Config resolve(Config parsed, Config substitutions) {
        Config merged = parsed.withFallback(substitutions).resolve();
        Config result = ConfigFactory.empty(parsed.origin().description());
        for (String key : parsed.root().keySet()) {
            String path = ConfigUtil.joinPath(key);
            if (merged.hasPath(path)) {
                result = result.withValue(path, merged.getValue(path));
            }
        }
        return result;
    }
}
