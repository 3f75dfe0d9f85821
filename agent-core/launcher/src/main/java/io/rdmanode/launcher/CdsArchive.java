// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The class-data-sharing archive this JVM started with, and the one made on this node when there was none for
 * this exact JDK. The start script picks the archive (packaged, else the node's) and says so in system
 * properties; when it found none, this class makes one after the agent is ready: a training run of the same
 * JVM with the same flags on the demo host ({@code --demo --exit-when-ready}, as the build makes the packaged
 * one), at the lowest CPU priority, written next to the state and renamed into place only when complete. The
 * next start uses it. Archives of other JDK versions in that directory are deleted then.
 */
final class CdsArchive {

    static final String IN_USE_PROPERTY = "rdma.agent.cds.inUse";
    static final String DIR_PROPERTY = "rdma.agent.cds.dir";
    static final String FILE_PROPERTY = "rdma.agent.cds.file";
    /** Framework property for {@code /status}: {@code packaged <path>}, {@code state <path>} or {@code none}. */
    static final String STATUS_PROPERTY = "rdma.agent.cds";
    private static final Logger LOG = LoggerFactory.getLogger(CdsArchive.class);
    private static volatile Process training;

    private CdsArchive() {
    }

    /** What the start script chose, for {@code /status}; empty when started without it (tests, plain java -jar). */
    static Optional<String> inUse() {
        String value = System.getProperty(IN_USE_PROPERTY);
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        int colon = value.indexOf(':');
        String described = colon < 0 ? value : value.substring(0, colon) + " " + value.substring(colon + 1);
        if (value.equals("none")) {
            Optional<Path> target = target();
            return Optional.of(target.map(t -> "none: making " + t + " for the next start").orElse("none"));
        }
        return Optional.of(described);
    }

    private static Optional<Path> target() {
        String dir = System.getProperty(DIR_PROPERTY);
        String file = System.getProperty(FILE_PROPERTY);
        return dir == null || dir.isBlank() || file == null ? Optional.empty() : Optional.of(Path.of(dir, file));
    }

    /** After the agent is ready: starts the training run when this JVM runs without an archive. */
    static void makeIfMissing(Path home) {
        if (!"none".equals(System.getProperty(IN_USE_PROPERTY)) || target().isEmpty()) {
            return;
        }
        Path target = target().get();
        Thread trainer = new Thread(() -> train(home, target), "rdma-agent-cds-training");
        trainer.setDaemon(true);
        trainer.start();
    }

    private static void train(Path home, Path target) {
        Path partial = target.resolveSibling(target.getFileName() + ".partial-" + ProcessHandle.current().pid());
        Path log = target.resolveSibling(target.getFileName() + ".log");
        try {
            Files.createDirectories(target.getParent());
            List<String> command = command(home, partial);
            LOG.info("no class-data-sharing archive for java {}: making {} (a start-up on the demo host)",
                    System.getProperty("java.version"), target);
            long started = System.nanoTime();
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            builder.environment().put("RDMA_AGENT_HTTP_PORT", "0");
            builder.environment().remove("RDMA_AGENT_CDS_TRAIN");
            // The training run is not the agent: it must not tell systemd (MAINPID would move to it) nor a
            // takeover command waiting for this process that it serves.
            builder.environment().remove("NOTIFY_SOCKET");
            builder.environment().remove(ReadyNotice.READY_FILE_ENV);
            Process process = builder.start();
            training = process;
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                LOG.warn("class-data-sharing training did not finish in 5 minutes; see {}", log);
                return;
            }
            if (process.exitValue() != 0 || !Files.isRegularFile(partial)) {
                LOG.warn("class-data-sharing training failed (exit {}); see {}", process.exitValue(), log);
                return;
            }
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Files.deleteIfExists(log);
            removeOthers(target);
            LOG.info("class-data-sharing archive {} made in {} ms; used from the next start", target,
                    (System.nanoTime() - started) / 1_000_000);
        } catch (IOException e) {
            LOG.warn("cannot make class-data-sharing archive {}: {}", target, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                Files.deleteIfExists(partial);
                Files.deleteIfExists(classLog(partial));
            } catch (IOException e) {
                LOG.debug("cannot delete {}: {}", partial, e.getMessage());
            }
        }
    }

    /** The agent is stopping: a training run still going would outlive it for nothing. */
    static void stopTraining() {
        Process process = training;
        if (process != null) {
            process.destroyForcibly();
        }
    }

    /** The same java and flags as this JVM, writing the archive at exit, on the demo host. */
    static List<String> command(Path home, Path output) {
        List<String> command = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/nice"))) {
            command.addAll(List.of("/usr/bin/nice", "-n", "19"));
        }
        command.add(ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!arg.startsWith("-XX:SharedArchiveFile=") && !arg.startsWith("-XX:AOTCache=")
                    && !arg.startsWith("-Drdma.agent.cds.")) {
                command.add(arg);
            }
        }
        boolean aot = output.getFileName().toString().contains(".aot");
        command.add(aot ? "-XX:AOTCacheOutput=" + output : "-XX:ArchiveClassesAtExit=" + output);
        command.add(aot ? "-Xlog:cds=error,aot=error" : "-Xlog:cds=error");
        if (!aot) {                                    // the AOT cache's assembly JVM would write it again
            Path classLog = classLog(output);
            command.add("-Xlog:class+load=info:file=" + classLog + ":uptime,level,tags:filecount=0");
            command.add("-D" + CdsClassLinker.CLASS_LOG_PROPERTY + "=" + classLog);
        }
        command.addAll(List.of("-jar", home.resolve("lib/agent-launcher.jar").toString(), "--home", home.toString(),
                "--demo", "--exit-when-ready"));
        return command;
    }

    /** The training run's class log ({@link CdsClassLinker}), beside its archive. */
    static Path classLog(Path output) {
        return output.resolveSibling(output.getFileName() + ".classes");
    }

    private static void removeOthers(Path kept) {
        try (DirectoryStream<Path> old = Files.newDirectoryStream(kept.getParent(), "agent-*.{jsa,aot}")) {
            for (Path file : old) {
                if (!file.equals(kept)) {
                    Files.deleteIfExists(file);
                    LOG.info("removed class-data-sharing archive of another JDK {}", file);
                }
            }
        } catch (IOException e) {
            LOG.debug("cannot clean {}: {}", kept.getParent(), e.getMessage());
        }
    }
}
