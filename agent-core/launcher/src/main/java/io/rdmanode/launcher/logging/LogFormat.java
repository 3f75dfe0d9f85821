// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher.logging;

import java.util.Locale;

/** How log lines are written: plain text for people, JSON lines for log collectors. */
public enum LogFormat {
    TEXT, JSON;

    public static LogFormat parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown log format '" + value + "' (expected text or json)", e);
        }
    }
}
