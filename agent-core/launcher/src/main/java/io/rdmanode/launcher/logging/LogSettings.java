// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher.logging;

import java.io.PrintStream;
import java.util.Locale;
import org.slf4j.event.Level;

/**
 * Process-wide logging settings, set once by the launcher before the framework starts and changeable later
 * (a new level applies to every logger at once). SLF4J's service provider is instantiated by SLF4J itself,
 * so these settings cannot be injected into it; this holder is the one static seam, owned by the launcher.
 */
public final class LogSettings {

    private static volatile Level level = Level.INFO;
    private static volatile LogFormat format = LogFormat.TEXT;
    private static volatile PrintStream out = System.err;

    private LogSettings() {
    }

    public static void configure(Level newLevel, LogFormat newFormat) {
        level = newLevel;
        format = newFormat;
    }

    /** Tests capture log lines by redirecting them. */
    public static void redirect(PrintStream stream) {
        out = stream;
    }

    public static Level parseLevel(String value) {
        try {
            return Level.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "unknown log level '" + value + "' (expected error, warn, info, debug or trace)", e);
        }
    }

    static Level level() {
        return level;
    }

    static LogFormat format() {
        return format;
    }

    static PrintStream out() {
        return out;
    }
}
