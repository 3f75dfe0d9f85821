// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The process's logging backend, offered as a service by the launcher (the backend lives on its class path,
 * outside every bundle). The config bundle applies {@code agent.runtime.log.level} and {@code .format} through
 * it while the agent runs. Without a launcher (a test framework) there is no such service. Thread-safe; a change
 * applies to every logger at once.
 *
 * @since 1.0
 */
@ProviderType
public interface LoggingControl {

    /** Log levels, most verbose first; names are the lower-case words of {@code agent.runtime.log.level}. */
    enum Level { TRACE, DEBUG, INFO, WARN, ERROR }

    /** Line formats: {@code text} (human) or {@code json} (one object per line, for log collectors). */
    enum Format { TEXT, JSON }

    Level level();

    Format format();

    /** Sets both at once (one log line when anything changed); either may be {@code null} for unchanged. */
    void configure(Level level, Format format);

    /**
     * Parses a configuration word ({@code info}, {@code WARN}) into a level.
     *
     * @throws IllegalArgumentException naming the accepted words
     */
    static Level parseLevel(String value) {
        return parse(Level.class, value, "log level", "error, warn, info, debug or trace");
    }

    /**
     * Parses {@code text} or {@code json}.
     *
     * @throws IllegalArgumentException naming the accepted words
     */
    static Format parseFormat(String value) {
        return parse(Format.class, value, "log format", "text or json");
    }

    private static <E extends Enum<E>> E parse(Class<E> type, String value, String what, String expected) {
        try {
            return Enum.valueOf(type, String.valueOf(value).trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown " + what + " '" + value + "' (expected " + expected + ")", e);
        }
    }
}
