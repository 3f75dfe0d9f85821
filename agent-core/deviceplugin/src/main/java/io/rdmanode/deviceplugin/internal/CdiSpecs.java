// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.deviceplugin.CdiSpec;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This agent's CDI specs: creates them, and removes the ones a previous instance left (a SIGKILLed agent never
 * deletes its specs; a runtime would keep handing out devices of a pool that no longer exists). Every spec of
 * this agent is named {@code rdmanode.io-<class>_<owner>.json}; a directory is cleaned once per layer, before
 * the layer's first spec in it exists, so only files of dead instances go.
 */
final class CdiSpecs {

    private static final Logger LOG = LoggerFactory.getLogger(CdiSpecs.class);
    static final String VENDOR = "rdmanode.io";
    private static final Pattern OURS = Pattern.compile("\\.?" + Pattern.quote(VENDOR) + "-.*\\.(json|tmp)");
    private static final Pattern KIND = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?");

    private final Set<Path> cleaned = ConcurrentHashMap.newKeySet();
    private final List<String> removed = new java.util.concurrent.CopyOnWriteArrayList<>();

    CdiSpec spec(Path dir, String kind, String owner) {
        if (!KIND.matcher(kind).matches()) {
            throw new IllegalArgumentException("CDI kind '" + kind + "' is not <vendor>/<class>");
        }
        if (!io.rdmanode.deviceplugin.CdiDevice.NAME.matcher(owner).matches()) {
            throw new IllegalArgumentException("CDI spec owner '" + owner + "' is not a valid name part");
        }
        cleanOnce(dir);
        return new CdiSpecFile(dir, kind, owner);
    }

    /** Removes this agent's spec files from {@code dir} unless done already by this layer. */
    void cleanOnce(Path dir) {
        Path d = dir.toAbsolutePath().normalize();
        if (!cleaned.add(d)) {
            return;
        }
        if (!Files.isDirectory(d)) {
            return;
        }
        List<Path> stale = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(d)) {
            for (Path f : files) {
                if (OURS.matcher(f.getFileName().toString()).matches()) {
                    stale.add(f);
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot list CDI spec directory {}: {}", d, e.getMessage());
            return;
        }
        for (Path f : stale) {
            try {
                Files.delete(f);
                removed.add(f.toString());
                LOG.info("stale CDI spec removed file={} (left by a previous agent instance)", f);
            } catch (NoSuchFileException e) {
                // gone meanwhile
            } catch (IOException e) {
                LOG.warn("cannot remove stale CDI spec {}: {}", f, e.getMessage());
            }
        }
    }

    List<String> removed() {
        return List.copyOf(removed);
    }
}
