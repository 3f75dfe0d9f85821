// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

/**
 * One thing wrong (or worth a warning) in the configuration file, located the way an operator looks for it:
 * {@code /etc/rdma-node-agent/agent.conf:12: probe.size: 100 is above the maximum 64}.
 *
 * @param file the file the value came from (an included file names itself), or the config file
 * @param line 1-based line, or -1 when the problem is not tied to a line (e.g. a missing required key)
 * @param key  the full HOCON path of the key, or empty for whole-file problems (syntax)
 */
record Problem(String file, int line, String key, String message) {

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(file);
        if (line > 0) {
            text.append(':').append(line);
        }
        text.append(": ");
        if (!key.isEmpty()) {
            text.append(key).append(": ");
        }
        return text.append(message).toString();
    }
}
