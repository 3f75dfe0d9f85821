// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

/**
 * One thing wrong (or worth a warning) in the configuration file, located the way an operator (and an editor
 * jumping to compiler-style locations) looks for it:
 * {@code /etc/rdma-node-agent/agent.conf:12:5: probe.size: 100 is above the maximum 64}.
 *
 * @param file   the file the value came from (an included file names itself), or the config file
 * @param line   1-based line, or -1 when the problem is not tied to a line (e.g. a missing required key)
 * @param column 1-based column where the key starts on that line ({@link Columns} finds it), or 0 when unknown
 * @param key    the full HOCON path of the key, {@code syntax} for a file the parser refused, or empty for
 *               whole-file problems
 */
record Problem(String file, int line, int column, String key, String message) {

    /** The key given to problems the HOCON parser reports: there is no key yet, the text itself is wrong. */
    static final String SYNTAX = "syntax";

    Problem(String file, int line, String key, String message) {
        this(file, line, 0, key, message);
    }

    Problem atColumn(int column) {
        return new Problem(file, line, column, key, message);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(file);
        if (line > 0) {
            text.append(':').append(line);
            if (column > 0) {
                text.append(':').append(column);
            }
        }
        text.append(": ");
        if (!key.isEmpty()) {
            text.append(key).append(": ");
        }
        return text.append(message).toString();
    }
}
