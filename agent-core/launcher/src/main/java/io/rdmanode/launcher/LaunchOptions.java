// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Command-line options of {@code bin/rdma-node-agent}.
 *
 * @param home          the distribution directory holding {@code bundles/} and {@code config/}
 * @param config        the HOCON file; empty means {@code config/agent.conf} (or {@code config/demo.conf} in demo)
 * @param demo          run on the bundled demo host, with state and sockets under a temporary directory
 * @param exitWhenReady stop as soon as the agent has started ({@code /startedz}; build-time class-data-sharing
 *                      training runs)
 * @param exitAfterHandover stop (exit 0, after the Freeflow drain) once a successor has taken over, as a
 *                      supervisor that started the successor expects; also when {@code NOTIFY_SOCKET} is set
 */
record LaunchOptions(Path home, Optional<Path> config, boolean demo, boolean exitWhenReady,
                     boolean exitAfterHandover) {

    static final String USAGE = """
            usage: rdma-node-agent [--config PATH] [--demo] [--exit-when-ready] [--exit-after-handover] [--help]
                                  [--version]
                   rdma-node-agent status [--url URL] [--config PATH] [--json]   a running agent, as tables
                   rdma-node-agent check-config [--strict] [--demo] FILE         check a configuration offline
                   rdma-node-agent takeover [--config PATH] [--timeout SECONDS]  start a successor, stop this one
                   rdma-node-agent --print-setting KEY [--config PATH]           one resolved setting, e.g.
                                                                                 agent.runtime.stateDir
              --config PATH       HOCON configuration file (default: <home>/config/agent.conf)
              --demo              run on the bundled demo host with config/demo.conf; state under a temp dir
              --exit-when-ready   stop once the agent has started: every bundle active, /startedz 200; kubelet
                                  registration (/readyz) is not waited for (CDS training)
              --exit-after-handover  stop once a successor started on the same state directory has taken
                                  over (the default under systemd, which sets NOTIFY_SOCKET)
              --home DIR          distribution directory (default: the parent of the launcher's lib/)
            each command has its own --help (status --help, check-config --help, --print-setting KEY --help)
            """;

    /** What {@code --help} prints: usage, the environment the start script and the shipped files read, exits. */
    static final String HELP = USAGE + """
            environment (read by bin/rdma-node-agent and the shipped configuration files):
              JAVA_HOME               the JDK to run (default: java on PATH)
              JAVA_OPTS               extra JVM flags, after the script's own (so they win)
              RDMA_AGENT_JIT          c1 (default: smallest, fastest start) | c2 (more Freeflow router throughput)
              RDMA_AGENT_MEMORY_LIMIT the memory the agent may use (bytes, or K/M/G, Ki/Mi/Gi), from which heap
                                      and direct memory are sized (default: the cgroup's memory limit, else a
                                      64 MiB heap); bin/rdma-node-agent --print-jvm-flags shows the result
              RDMA_AGENT_CGROUP_ROOT  where the script reads that cgroup limit (default /sys/fs/cgroup)
              RDMA_AGENT_CDS_DIR      where the agent makes its class-data archive (default <stateDir>/cds; the
                                      demo: $XDG_CACHE_HOME or ~/.cache/rdma-node-agent/cds); empty: none
              RDMA_AGENT_CDS_TRAIN    set: a build-time training run writing the packaged archive
              RDMA_AGENT_CDS_OUT      with RDMA_AGENT_CDS_TRAIN: the archive's path (default lib/cds/)
              XDG_CACHE_HOME, HOME    the demo's class-data archive directory (see RDMA_AGENT_CDS_DIR)
              MALLOC_ARENA_MAX        glibc malloc arenas (default 2)
              STATE_DIRECTORY         agent.conf's agent.runtime.stateDir (systemd's StateDirectory= sets it;
                                      default /var/lib/rdma-node-agent)
              RDMA_AGENT_HTTP_PORT    agent.conf's and demo.conf's agent.http.port (default 9456; 0: any free port)
            """ + ExitCode.TABLE;

    static LaunchOptions parse(String[] args, Path defaultHome) {
        Path home = defaultHome;
        Path config = null;
        boolean demo = false;
        boolean exitWhenReady = false;
        boolean exitAfterHandover = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--config" -> config = Path.of(value(args, ++i, "--config"));
                case "--home" -> home = Path.of(value(args, ++i, "--home"));
                case "--demo" -> demo = true;
                case "--exit-when-ready" -> exitWhenReady = true;
                case "--exit-after-handover" -> exitAfterHandover = true;
                default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'");
            }
        }
        return new LaunchOptions(home.toAbsolutePath().normalize(),
                Optional.ofNullable(config).map(p -> p.toAbsolutePath().normalize()), demo, exitWhenReady,
                exitAfterHandover);
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[index];
    }

    Path configFile() {
        return config.orElseGet(() -> home.resolve("config").resolve(demo ? "demo.conf" : "agent.conf"));
    }

    Path bundlesDir() {
        return home.resolve("bundles");
    }
}
