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
import java.util.stream.Stream;
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
    private static final String PARTIAL = ".partial-";
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
    private static volatile Process training;
    /** {@link #tiedToThisProcess()}'s answer, worked out once (it runs setpriv). */
    private static volatile List<String> tiedPrefix;

    private CdsArchive() {
    }

    /**
     * What the start script chose and whether this JVM took it, for {@code /status}; empty when started without
     * the script (tests, plain java -jar).
     */
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
        Optional<Path> refused = refused();
        if (refused.isPresent()) {
            return Optional.of("refused " + refused.get() + " (this JVM did not map it)" + (remakes()
                    ? ": making " + target().get() + " for the next start" : ": starting without one"));
        }
        return Optional.of(described);
    }

    /**
     * The archive the script named, when this JVM refused it. The JVM checks an archive against the class path it
     * was made with (each jar's size and modification time) and its own flags, and only says so in a warning
     * line: an archive made on the node before the distribution was upgraded in place, or by another copy of it
     * (the demo's archive is per user), went on being named at every start and refused, so every start ran
     * without one, as slow as the first. A mapped archive is in {@code /proc/self/maps}.
     */
    static Optional<Path> refused() {
        String value = System.getProperty(IN_USE_PROPERTY, "");
        int colon = value.indexOf(':');
        if (colon < 0 || !(value.startsWith("state:") || value.startsWith("packaged:"))) {
            return Optional.empty();
        }
        Path archive = Path.of(value.substring(colon + 1));
        if (!Files.isRegularFile(archive)) {
            return Optional.empty();                   // not the path the script gave (a space in it): cannot tell
        }
        try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
            return mapped(archive, maps) ? Optional.empty() : Optional.of(archive);
        } catch (IOException | java.io.UncheckedIOException e) {
            return Optional.empty();                   // cannot tell: as the script said
        }
    }

    /** Whether a line of a {@code /proc/<pid>/maps} listing names {@code archive} (its real path: the kernel's). */
    static boolean mapped(Path archive, Stream<String> maps) {
        String real;
        try {
            real = archive.toRealPath().toString();
        } catch (IOException gone) {
            real = archive.toAbsolutePath().normalize().toString();
        }
        String suffix = " " + real;
        return maps.anyMatch(line -> line.endsWith(suffix));
    }

    /** A refused archive of the node's own (not the packaged one) is made again, over it. */
    private static boolean remakes() {
        return System.getProperty(IN_USE_PROPERTY, "").startsWith("state:") && target().isPresent();
    }

    private static Optional<Path> target() {
        String dir = System.getProperty(DIR_PROPERTY);
        String file = System.getProperty(FILE_PROPERTY);
        return dir == null || dir.isBlank() || file == null ? Optional.empty() : Optional.of(Path.of(dir, file));
    }

    /**
     * After the agent is ready: starts the training run when this JVM runs without an archive of the node's
     * own, none found or one it refused ({@link #refused}). A refused packaged archive is only reported: the
     * script prefers it, so an archive made here would not be used.
     */
    static void makeIfMissing(Path home) {
        Optional<Path> refused = refused();
        refused.ifPresent(archive -> LOG.warn("this JVM refused the class-data-sharing archive {} (made for another"
                + " build of the distribution or with other JVM flags; JAVA_OPTS?): starting without one{}", archive,
                remakes() ? "; making it again" : ""));
        boolean none = "none".equals(System.getProperty(IN_USE_PROPERTY));
        if (!(none || refused.isPresent() && remakes()) || target().isEmpty()) {
            return;
        }
        Path target = target().get();
        Thread trainer = new Thread(() -> train(home, target), "rdma-agent-cds-training");
        trainer.setDaemon(true);
        trainer.start();
    }

    private static void train(Path home, Path target) {
        Path partial = target.resolveSibling(target.getFileName() + PARTIAL + ProcessHandle.current().pid());
        Path log = target.resolveSibling(target.getFileName() + ".log");
        try {
            Files.createDirectories(target.getParent());
            removeAbandoned(target);
            LOG.info("no class-data-sharing archive for java {}: making {} (a start-up on the demo host)",
                    System.getProperty("java.version"), target);
            long started = System.nanoTime();
            Files.deleteIfExists(log);
            for (List<String> step : commands(home, partial)) {
                if (!run(step, log)) {
                    return;
                }
            }
            if (!Files.isRegularFile(partial)) {
                LOG.warn("class-data-sharing training wrote no archive; see {}", log);
                return;
            }
            // Where it was made first: the start script uses an archive only in the distribution it names.
            Files.writeString(home(target), home + "\n");
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
                Files.deleteIfExists(aotConfiguration(partial));
            } catch (IOException e) {
                LOG.debug("cannot delete {}: {}", partial, e.getMessage());
            }
        }
    }

    /** One step of the training; false (and a warning) when it failed or overran. */
    private static boolean run(List<String> command, Path log) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
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
            return false;
        }
        if (process.exitValue() != 0) {
            LOG.warn("class-data-sharing training failed (exit {}); see {}", process.exitValue(), log);
            return false;
        }
        return true;
    }

    /** The agent is stopping: a training run still going would outlive it for nothing. */
    static void stopTraining() {
        Process process = training;
        if (process != null) {
            process.destroyForcibly();
        }
    }

    /**
     * The training's steps: the same java and flags as this JVM on the demo host. JDK 17: one run that writes
     * the archive at exit. JDK 25: the AOT cache's two steps run here one after the other (a run recording the
     * AOT configuration, then the JVM that assembles the cache from it), not the one-step
     * {@code -XX:AOTCacheOutput}, whose training JVM starts the assembly JVM itself: that one would outlive an
     * agent killed meanwhile. Each step is tied to the agent's life ({@link #tiedToThisProcess}).
     */
    static List<List<String>> commands(Path home, Path output) {
        boolean aot = output.getFileName().toString().contains(".aot");
        if (!aot) {                                    // the class log, for CdsClassLinker
            Path classLog = classLog(output);
            return List.of(step(home, List.of("-XX:ArchiveClassesAtExit=" + output, "-Xlog:cds=error",
                    "-Xlog:class+load=info:file=" + classLog + ":uptime,level,tags:filecount=0",
                    "-D" + CdsClassLinker.CLASS_LOG_PROPERTY + "=" + classLog)));
        }
        Path configuration = aotConfiguration(output);
        return List.of(
                step(home, List.of("-XX:AOTMode=record", "-XX:AOTConfiguration=" + configuration,
                        "-Xlog:cds=error,aot=error")),
                step(home, List.of("-XX:AOTMode=create", "-XX:AOTConfiguration=" + configuration,
                        "-XX:AOTCache=" + output, "-Xlog:cds=error,aot=error")));
    }

    private static List<String> step(Path home, List<String> archiveFlags) {
        List<String> command = new ArrayList<>(tiedToThisProcess());
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
        command.addAll(archiveFlags);
        command.addAll(List.of("-jar", home.resolve("lib/agent-launcher.jar").toString(), "--home", home.toString(),
                "--demo", "--exit-when-ready"));
        return command;
    }

    /**
     * {@code setpriv --pdeathsig KILL} (util-linux), where the node's setpriv has that option: the kernel kills the
     * step when the agent dies. An agent killed (SIGKILL, out of memory) while training left its training JVM
     * running, and each start of a crash loop under a supervisor that does not kill the whole process group added
     * one more (12 orphaned JVMs after 16 rounds of {@code bench-crash-window} on a JDK without an archive).
     * systemd and a container runtime kill the orphans anyway. Without the option (util-linux before 2.33, as on
     * RHEL 8) the steps run untied rather than not at all.
     */
    static List<String> tiedToThisProcess() {
        List<String> prefix = tiedPrefix;
        if (prefix == null) {
            prefix = tiedBy(SETPRIV);
            tiedPrefix = prefix;
        }
        return prefix;
    }

    /** The prefix that ties a command to this process through {@code setpriv}, once it has been seen to work. */
    static List<String> tiedBy(Path setpriv) {
        if (!Files.isExecutable(setpriv)) {
            return List.of();
        }
        List<String> prefix = List.of(setpriv.toString(), "--pdeathsig", "KILL");
        List<String> probe = new ArrayList<>(prefix);
        probe.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        probe.add("-version");
        try {
            Process process = new ProcessBuilder(probe).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0) {
                return prefix;
            }
            process.destroyForcibly();
            LOG.info("{} cannot set a parent-death signal: the class-data training is not tied to the agent",
                    setpriv);
        } catch (IOException e) {
            LOG.info("cannot run {}: {}; the class-data training is not tied to the agent", setpriv, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return List.of();
    }

    /** The training run's record of what to put in the AOT cache (JDK 25), beside the archive. */
    static Path aotConfiguration(Path output) {
        return output.resolveSibling(output.getFileName() + ".aotconf");
    }

    /** Partial files of training runs whose agent is gone (killed before it could delete them). */
    private static void removeAbandoned(Path target) {
        try (DirectoryStream<Path> partials = Files.newDirectoryStream(target.getParent(),
                target.getFileName() + PARTIAL + "*")) {
            for (Path file : partials) {
                String rest = file.getFileName().toString().substring(target.getFileName().toString().length()
                        + PARTIAL.length());
                int end = 0;
                while (end < rest.length() && Character.isDigit(rest.charAt(end))) {
                    end++;
                }
                boolean owned = end > 0 && ProcessHandle.of(Long.parseLong(rest.substring(0, end)))
                        .map(ProcessHandle::isAlive).orElse(false);
                if (!owned) {
                    Files.deleteIfExists(file);
                    LOG.info("removed {} (a training run whose agent is gone)", file);
                }
            }
        } catch (IOException | NumberFormatException e) {
            LOG.debug("cannot clean {}: {}", target.getParent(), e.getMessage());
        }
    }

    /** The file naming the distribution an archive was made for (the start script reads it), beside it. */
    static Path home(Path archive) {
        return archive.resolveSibling(archive.getFileName() + ".home");
    }

    /** The training run's class log ({@link CdsClassLinker}), beside its archive. */
    static Path classLog(Path output) {
        return output.resolveSibling(output.getFileName() + ".classes");
    }

    private static void removeOthers(Path kept) {
        try (DirectoryStream<Path> old = Files.newDirectoryStream(kept.getParent(), "agent-*.{jsa,aot}{,.home}")) {
            for (Path file : old) {
                if (!file.equals(kept) && !file.equals(home(kept))) {
                    Files.deleteIfExists(file);
                    LOG.info("removed class-data-sharing archive of another JDK {}", file);
                }
            }
        } catch (IOException e) {
            LOG.debug("cannot clean {}: {}", kept.getParent(), e.getMessage());
        }
    }
}
