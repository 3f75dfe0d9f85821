// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import io.rdmanode.agent.StartupGate;
import java.nio.file.Path;
import java.util.Hashtable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.osgi.framework.BundleContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The launcher's {@link StartupGate}: until the agent is first ready, the first resource a component reports
 * unavailable stops the agent with {@link ExitCode#RESOURCE_UNAVAILABLE} and one line on stderr. The exit runs on a
 * thread of its own: the caller is a component activating on an SCR thread, and the framework's stop (from the
 * shutdown hook) waits for that activation to end.
 */
final class LauncherStartupGate implements StartupGate {

    private static final Logger LOG = LoggerFactory.getLogger(LauncherStartupGate.class);

    private final Path configFile;
    private final IntConsumer exit;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private volatile boolean ready;

    LauncherStartupGate(Path configFile, IntConsumer exit) {
        this.configFile = configFile;
        this.exit = exit;
    }

    static LauncherStartupGate register(BundleContext system, Path configFile, IntConsumer exit) {
        LauncherStartupGate gate = new LauncherStartupGate(configFile, exit);
        system.registerService(StartupGate.class, gate, new Hashtable<>());
        return gate;
    }

    /** From now on a resource reported unavailable is the component's to report: the agent keeps serving. */
    void ready() {
        ready = true;
    }

    @Override
    public boolean invalidConfiguration(java.util.List<String> problems) {
        if (ready) {
            return false;
        }
        if (stopping.compareAndSet(false, true)) {
            LOG.error("cannot start: the configuration {} is invalid ({} problem(s))", configFile, problems.size());
            for (String p : problems) {
                System.err.println("rdma-node-agent: " + p);
            }
            System.err.println("rdma-node-agent: the configuration is invalid; nothing started with it"
                    + " (check-config " + configFile + " lists every problem)");
            Thread stopper = new Thread(() -> exit.accept(ExitCode.CONFIG_INVALID.code),
                    "rdma-agent-launcher-startup-gate");
            stopper.setDaemon(true);
            stopper.start();
        }
        return true;
    }

    @Override
    public boolean unavailable(String line) {
        if (ready) {
            return false;
        }
        if (stopping.compareAndSet(false, true)) {
            String text = line + " (configuration " + configFile + ")";
            LOG.error("cannot start: {}", text);
            System.err.println("rdma-node-agent: " + text);
            Thread stopper = new Thread(() -> exit.accept(ExitCode.RESOURCE_UNAVAILABLE.code),
                    "rdma-agent-launcher-startup-gate");
            stopper.setDaemon(true);
            stopper.start();
        }
        return true;
    }
}
