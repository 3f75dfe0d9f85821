// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import org.slf4j.event.Level;

/** Renders one log event as a text line or a JSON object on one line. */
final class LogLineFormatter {

    private LogLineFormatter() {
    }

    static String format(LogFormat format, Instant at, Level level, String thread, String logger, String message,
            Throwable error) {
        return format == LogFormat.JSON
                ? json(at, level, thread, logger, message, error)
                : text(at, level, thread, logger, message, error);
    }

    private static String text(Instant at, Level level, String thread, String logger, String message,
            Throwable error) {
        StringBuilder line = new StringBuilder(128)
                .append(at).append(' ')
                .append(String.format("%-5s", level)).append(' ')
                .append('[').append(thread).append("] ")
                .append(shortName(logger)).append(" - ")
                .append(message);
        if (error != null) {
            line.append(System.lineSeparator()).append(stackTrace(error).stripTrailing());
        }
        return line.toString();
    }

    private static String json(Instant at, Level level, String thread, String logger, String message,
            Throwable error) {
        return JsonLine.write(at, level, thread, logger, message, error == null ? null : String.valueOf(error),
                error == null ? null : stackTrace(error));
    }

    /** {@code io.rdmanode.config.internal.HoconConfigBridge} becomes {@code i.r.c.i.HoconConfigBridge}. */
    static String shortName(String logger) {
        String[] parts = logger.split("\\.");
        StringBuilder out = new StringBuilder(logger.length());
        for (int i = 0; i < parts.length - 1; i++) {
            if (!parts[i].isEmpty()) {
                out.append(parts[i].charAt(0)).append('.');
            }
        }
        return out.append(parts[parts.length - 1]).toString();
    }

    static String stackTrace(Throwable error) {
        StringWriter text = new StringWriter();
        error.printStackTrace(new PrintWriter(text));
        return text.toString();
    }
}
