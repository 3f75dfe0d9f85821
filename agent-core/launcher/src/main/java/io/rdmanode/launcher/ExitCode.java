// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

/**
 * The one table of exit statuses every command of {@code bin/rdma-node-agent} uses, so a script, a systemd unit
 * ({@code RestartPreventExitStatus=}) or an operator can tell "fix the configuration" from "something holds the
 * port" without reading the log. {@code --help} prints {@link #TABLE}; README has the same table.
 */
enum ExitCode {

    OK(0, "success (status: the agent is ready and every check passes)"),
    FAILURE(1, "anything else (status: the agent runs but is not ready or a check fails)"),
    USAGE(2, "usage: an unknown option or a missing argument"),
    /**
     * Never returned by the agent: the JVM's own status when it runs out of heap or metaspace under the start
     * script's {@code -XX:+ExitOnOutOfMemoryError}. It is in the table because a supervisor sees it, and so that
     * no status of the agent's means the same number: the configuration's was 3 until an out-of-memory exit was
     * found reading as "the configuration is invalid", which a unit's {@code RestartPreventExitStatus=} would
     * then have left down.
     */
    OUT_OF_MEMORY(3, "the JVM ran out of heap or metaspace and exited (-XX:+ExitOnOutOfMemoryError; the JVM's "
            + "own status, not a configuration problem)"),
    CONFIG_UNREADABLE(4, "the configuration file is missing or unreadable"),
    RESOURCE_UNAVAILABLE(5, "a resource is unavailable: at start, the HTTP port, state directory, CNI socket, "
            + "Freeflow socket or device-plugin directory; for status, the agent is not reachable"),
    /** systemd names it NOTCONFIGURED (LSB); the shipped unit does not restart on it: a restart cannot fix it. */
    CONFIG_INVALID(6, "the configuration is invalid (syntax, type, range, a component's own check)");

    static final String TABLE = table();

    final int code;
    final String meaning;

    ExitCode(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    private static String table() {
        StringBuilder out = new StringBuilder("exit status:\n");
        for (ExitCode exit : values()) {
            out.append("  ").append(exit.code).append("  ").append(exit.meaning).append('\n');
        }
        return out.toString();
    }
}
