// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

/**
 * Makes text that came from outside the agent (a CNI container ID, a device ID a kubelet client sent, a
 * Freeflow client's path) safe to put in a log line. A newline in such a value would otherwise start a forged
 * line of its own, and a terminal escape would rewrite what an operator's terminal shows. Control characters
 * become Java-style escapes ({@code \n}, {@code \u001b}), so the value stays readable and recognisable, and a
 * value longer than the limit is cut with a note of its length: one client cannot fill the log with one call.
 *
 * @since 1.3
 */
public final class LogText {

    /** Default longest value logged whole; longer values are cut and marked. */
    public static final int DEFAULT_LIMIT = 256;

    private LogText() {
    }

    /** {@link #escape(CharSequence, int)} with {@link #DEFAULT_LIMIT}. */
    public static String escape(CharSequence untrusted) {
        return escape(untrusted, DEFAULT_LIMIT);
    }

    /**
     * The value with every control character (C0, DEL, C1, and the Unicode line and paragraph separators)
     * escaped, and a backslash doubled so an escape in the input cannot pass for one of ours; cut after
     * {@code limit} characters of input with {@code …(N chars)} appended. {@code null} gives {@code "null"}.
     */
    public static String escape(CharSequence untrusted, int limit) {
        if (untrusted == null) {
            return "null";
        }
        int length = untrusted.length();
        int shown = Math.min(length, Math.max(0, limit));
        StringBuilder out = null;
        for (int i = 0; i < shown; i++) {
            char c = untrusted.charAt(i);
            String replacement = replacement(c);
            if (replacement != null && out == null) {
                out = new StringBuilder(shown + 16).append(untrusted, 0, i);
            }
            if (out != null) {
                if (replacement != null) {
                    out.append(replacement);
                } else {
                    out.append(c);
                }
            }
        }
        if (out == null && shown == length) {
            return untrusted.toString();
        }
        if (out == null) {
            out = new StringBuilder(shown + 16).append(untrusted, 0, shown);
        }
        if (shown < length) {
            out.append("…(").append(length).append(" chars)");
        }
        return out.toString();
    }

    private static String replacement(char c) {
        switch (c) {
            case '\n': return "\\n";
            case '\r': return "\\r";
            case '\t': return "\\t";
            case '\\': return "\\\\";
            default:
                if (c < 0x20 || (c >= 0x7f && c < 0xa0) || c == '\u2028' || c == '\u2029') {
                    return String.format("\\u%04x", (int) c);
                }
                return null;
        }
    }
}
