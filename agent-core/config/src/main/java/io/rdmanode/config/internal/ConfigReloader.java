// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import com.typesafe.config.Config;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read, validate as a whole, apply: the steps of one reload, run on the bridge's single worker thread. A file
 * with any error changes nothing; the last good one stays in force.
 */
final class ConfigReloader {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigReloader.class);
    /**
     * How long the file must keep a revision that removes configurations before it is applied. A writer that
     * pauses mid-save past the settle time (a slow copy, a script writing section by section) leaves a valid file
     * that lacks its last sections: applied at once, it deleted pools that kubelet then saw vanish (seen with a
     * 100 ms pause: 4 of 10 configurations deleted, then made again). A deliberate removal waits this much more.
     */
    static final long HOLD_REMOVALS_MS = 1000;

    /** A revision held for its removals: its content, when it was first read, what it would delete. */
    record Held(String checksum, long sinceNanos, Instant since, List<String> removals) {
    }

    private final Path file;
    private final Map<String, String> frameworkProperties;
    private final Supplier<ConfigSchema> schemas;
    private final ConfigAdminWriter writer;
    private final BundleSwitches switches;
    private final ConfigHistory history;
    private final Consumer<Map<String, Object>> liveRuntime;
    private final ConfigValidators validators;
    private final LongConsumer readAgainIn;

    private String lastSeenChecksum;
    private long revision;
    private Config lastGood;
    private long lastGoodRevision;
    private String lastGoodChecksum;
    private Map<String, Object> startupRuntime;
    /** The problems of the last refusal while nothing was ever applied (the agent's start), else empty. */
    private List<String> refusedAtStart = List.of();
    /** Why the first revision could not be written to ConfigAdmin (a full or read-only state directory), or null. */
    private String unwritableAtStart;
    private Held held;

    /**
     * @param liveRuntime receives {@code agent.runtime} after every apply; it applies what can change live.
     * @param readAgainIn runs {@link #reloadIfChanged} again after the given milliseconds (a held revision).
     */
    ConfigReloader(Path file, Map<String, String> frameworkProperties, Supplier<ConfigSchema> schemas,
                   ConfigAdminWriter writer, BundleSwitches switches, ConfigHistory history,
                   Consumer<Map<String, Object>> liveRuntime, ConfigValidators validators,
                   LongConsumer readAgainIn) {
        this.file = file;
        this.frameworkProperties = frameworkProperties;
        this.schemas = schemas;
        this.writer = writer;
        this.switches = switches;
        this.history = history;
        this.liveRuntime = liveRuntime;
        this.validators = validators;
        this.readAgainIn = readAgainIn;
    }

    /** Why the first revision could not be written, while no revision was ever applied; null otherwise. */
    String unwritableWithNothingInForce() {
        return lastGood == null ? unwritableAtStart : null;
    }

    /** The refusal's problems when no revision was ever applied; empty once one was. */
    List<String> refusedWithNothingInForce() {
        return lastGood == null ? refusedAtStart : List.of();
    }

    /** Reloads when the file's content differs from the last content seen (applied or rejected). */
    void reloadIfChanged() {
        byte[] content;
        try {
            content = HoconFile.read(file);
        } catch (IOException e) {
            HoconFile.Parsed unreadable = HoconFile.unreadable(file, e);
            // Once per reason: the poll would otherwise log the same refusal every 2 s.
            String seen = "unreadable: " + unreadable.problems().get(0).message();
            if (!Objects.equals(lastSeenChecksum, seen)) {
                lastSeenChecksum = seen;
                reject(++revision, unreadable);
            }
            return;
        }
        String checksum = HoconFile.checksum(content);
        if (checksum.equals(lastSeenChecksum)) {
            releaseHold();                  // the save ended where it started: what was held is gone from the file
            return;
        }
        HoconFile.Parsed parsed = HoconFile.parse(file, content, frameworkProperties);
        if (!parsed.ok()) {
            lastSeenChecksum = checksum;
            reject(++revision, parsed);
            return;
        }
        Mapping mapping = map(parsed.config());
        List<Problem> errors = check(mapping);
        if (errors.isEmpty() && heldForRemovals(checksum, mapping)) {
            return;                                             // read again: lastSeenChecksum stays as it was
        }
        lastSeenChecksum = checksum;
        long current = ++revision;
        if (!errors.isEmpty()) {
            reject(current, new HoconFile.Parsed(checksum, parsed.config(), errors));
            return;
        }
        write(current, checksum, parsed.config(), mapping);
    }

    /**
     * Whether a revision that would delete configurations waits: until the file has kept it for
     * {@link #HOLD_REMOVALS_MS}. Not at start (nothing is in force to protect) nor for a revision that removes
     * nothing. While held, {@code /status} shows it and the previous revision stays in force.
     */
    private boolean heldForRemovals(String checksum, Mapping mapping) {
        if (lastGood == null) {
            return false;
        }
        List<String> removals;
        try {
            removals = writer.removals(mapping);
        } catch (IOException | RuntimeException e) {
            removals = List.of();                               // the write reports what failed
        }
        if (removals.isEmpty()) {
            releaseHold();
            return false;
        }
        long now = System.nanoTime();
        if (held == null || !held.checksum().equals(checksum)) {
            held = new Held(checksum, now, Instant.now(), List.copyOf(removals));
            history.held(held);
            LOG.info("config checksum={} file={} removes {}: applied once the file has kept it for {} ms (a save"
                    + " still being written would otherwise delete them)", checksum, file, removals, HOLD_REMOVALS_MS);
        }
        long leftMs = HOLD_REMOVALS_MS - TimeUnit.NANOSECONDS.toMillis(now - held.sinceNanos());
        if (leftMs > 0) {
            readAgainIn.accept(leftMs);
            return true;
        }
        releaseHold();
        return false;
    }

    private void releaseHold() {
        if (held != null) {
            held = null;
            history.held(null);
        }
    }

    /** The installed bundles changed (hot swap): map the file in force again against what they declare now. */
    void remap() {
        if (lastGood != null) {
            apply(lastGoodRevision, lastGoodChecksum, lastGood);
        }
    }

    private void apply(long current, String checksum, Config config) {
        Mapping mapping = map(config);
        List<Problem> errors = check(mapping);
        if (!errors.isEmpty()) {
            reject(current, new HoconFile.Parsed(checksum, config, errors));
            return;
        }
        write(current, checksum, config, mapping);
    }

    private Mapping map(Config config) {
        return ConfigMapper.map(config, file.toString(), schemas.get(), switches.installedNames());
    }

    /** MetaType's errors, then the components' own checks: a value the component would refuse applies nothing. */
    private List<Problem> check(Mapping mapping) {
        List<Problem> errors = new ArrayList<>(mapping.errors());
        errors.addAll(validators.check(mapping, file.toString()));
        return errors;
    }

    private void write(long current, String checksum, Config config, Mapping mapping) {
        ConfigAdminWriter.Written written;
        try {
            written = writer.write(mapping);
        } catch (IOException | RuntimeException e) {
            LOG.error("cannot apply config revision={} file={}: {}", current, file, e.toString(), e);
            if (lastGood == null) {
                unwritableAtStart = e.getMessage() != null ? e.getMessage() : e.toString();
            }
            history.rejected(new ConfigHistory.Rejected(current, checksum, Instant.now(),
                    List.of(file + ": cannot apply: " + e.getMessage())));
            return;
        }
        List<String> warnings = new ArrayList<>(mapping.warnings().stream().map(new Columns()::describe).toList());
        warnings.addAll(switches.apply(mapping.bundleSwitches()));
        boolean firstApply = startupRuntime == null;
        if (firstApply) {
            startupRuntime = mapping.runtime();
        }
        // Logging follows live; the state directory and the shutdown bound are read at start-up only.
        boolean restartPending = !withoutLogging(startupRuntime).equals(withoutLogging(mapping.runtime()));
        try {
            liveRuntime.accept(mapping.runtime());
        } catch (RuntimeException e) {
            warnings.add("cannot change logging live: " + e.getMessage());
        }
        boolean newRevision = current != lastGoodRevision;
        lastGood = config;
        lastGoodRevision = current;
        lastGoodChecksum = checksum;
        history.applied(new ConfigHistory.Applied(current, checksum, Instant.now(), mapping.configurations().size(),
                written.changed(), written.deleted(), List.copyOf(warnings), mapping.unclaimed()),
                switches.describe(), restartPending);
        if (newRevision) {
            LOG.info("config applied revision={} checksum={} file={} configurations={} changed={} deleted={}",
                    current, checksum, file, mapping.configurations().size(), written.changed(), written.deleted());
            warnings.forEach(w -> LOG.warn("config: {}", w));
            if (restartPending && !firstApply) {
                LOG.info("agent.runtime changed; it applies at the next restart of the agent");
            }
        } else if (!written.changed().isEmpty() || !written.deleted().isEmpty()) {
            LOG.info("config re-applied after bundle change revision={} changed={} deleted={}", current,
                    written.changed(), written.deleted());
        }
    }

    private static Map<String, Object> withoutLogging(Map<String, Object> runtime) {
        Map<String, Object> rest = new java.util.TreeMap<>(runtime);
        rest.keySet().removeIf(key -> key.startsWith("log."));
        return rest;
    }

    private void reject(long current, HoconFile.Parsed parsed) {
        releaseHold();
        List<String> problems = parsed.problems().stream().map(new Columns()::describe).toList();
        history.rejected(new ConfigHistory.Rejected(current, parsed.checksum(), Instant.now(), problems));
        if (lastGood == null) {
            refusedAtStart = problems;
        }
        LOG.warn("config rejected revision={} file={} problems={}; {}", current, file, problems.size(),
                lastGood == null ? "no configuration is in force" : "revision " + lastGoodRevision + " stays in force");
        problems.forEach(p -> LOG.warn("config: {}", p));
    }
}
