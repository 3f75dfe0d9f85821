// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.osgi.framework.Bundle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Links, in a class-data-sharing training run, every bundle class the run loaded, so that the archive holds it.
 * JDK 17's dynamic archive keeps only linked classes, and the JVM links at dump time only those of its own class
 * loaders: a bundle class that was loaded but never linked (an exception type a verifier looked at, an annotation,
 * a class a start loads for a later call) was skipped ("Not linked", about 700 of them), so every start read,
 * parsed and defined it from its jar again. The training run logs the classes it loads
 * ({@code -Xlog:class+load}, the file named by {@link #CLASS_LOG_PROPERTY}); before the bundles stop, each class
 * defined from a bundle's jar is looked up in that bundle and linked. Linking verifies, which loads a few more
 * classes: the log is read again until no new one appears.
 */
final class CdsClassLinker {

    /** The training run's {@code -Xlog:class+load} file; set only in training runs. */
    static final String CLASS_LOG_PROPERTY = "rdma.agent.cds.classLog";
    private static final Logger LOG = LoggerFactory.getLogger(CdsClassLinker.class);
    private static final String TAG = "[class,load] ";
    private static final String SOURCE = " source: ";
    private static final int MAX_ROUNDS = 5;

    private CdsClassLinker() {
    }

    /** The class log of this training run; empty in every other run. */
    static Optional<Path> classLog() {
        String file = System.getProperty(CLASS_LOG_PROPERTY);
        return file == null || file.isBlank() ? Optional.empty() : Optional.of(Path.of(file));
    }

    /** Links what the log names from these bundles; deletes the log. Returns how many classes it linked. */
    static int linkLoaded(Path classLog, Bundle[] bundles) {
        Map<String, Bundle> byLocation = new HashMap<>();
        for (Bundle bundle : bundles) {
            jarOf(bundle.getLocation()).ifPresent(jar -> byLocation.put(jar, bundle));
        }
        if (!Files.isRegularFile(classLog)) {
            LOG.warn("class-data-sharing training: no class log {}; the archive keeps only the classes the JVM linked",
                    classLog);
            return 0;
        }
        Set<String> seen = new HashSet<>();
        int linked = 0;
        int failed = 0;
        try {
            for (int round = 0; round < MAX_ROUNDS; round++) {
                int before = seen.size();
                for (String line : Files.readAllLines(classLog)) {
                    Optional<Map.Entry<String, String>> loaded = parse(line);
                    if (loaded.isEmpty() || !seen.add(loaded.get().getKey() + SOURCE + loaded.get().getValue())) {
                        continue;
                    }
                    Bundle bundle = jarOf(loaded.get().getValue()).map(byLocation::get).orElse(null);
                    if (bundle == null) {
                        continue;                              // the JDK's, the launcher's or a generated class
                    }
                    if (link(bundle, loaded.get().getKey())) {
                        linked++;
                    } else {
                        failed++;
                    }
                }
                if (seen.size() == before) {
                    break;
                }
            }
            Files.deleteIfExists(classLog);
        } catch (IOException e) {
            LOG.warn("cannot read the class log {}: {}; the archive keeps only the classes the JVM linked", classLog,
                    e.getMessage());
        }
        LOG.info("class-data-sharing training: linked {} loaded bundle classes ({} could not be)", linked, failed);
        return linked;
    }

    /** A {@code class+load} line's class name and source; empty for other lines. */
    static Optional<Map.Entry<String, String>> parse(String line) {
        int tag = line.indexOf(TAG);
        int source = line.indexOf(SOURCE);
        if (tag < 0 || source < tag) {
            return Optional.empty();
        }
        String name = line.substring(tag + TAG.length(), source).trim();
        String from = line.substring(source + SOURCE.length()).trim();
        return name.isEmpty() || name.contains(" ") ? Optional.empty() : Optional.of(Map.entry(name, from));
    }

    /**
     * The jar a location or a class's source names, as one string for both: the bundle's location is
     * {@code file:///...}, the log's source {@code file:/...}.
     */
    static Optional<String> jarOf(String url) {
        if (!url.startsWith("file:")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Path.of(URI.create(url)).toString());
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return Optional.empty();
        }
    }

    private static boolean link(Bundle bundle, String name) {
        try {
            // Asking for the public fields links the class (JVM_GetClassDeclaredFields links first) without
            // initializing it: no static initializer of a component runs in a training run's stop.
            bundle.loadClass(name).getFields();
            return true;
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            LOG.debug("cannot link {} of {}: {}", name, bundle.getSymbolicName(), e.toString());
            return false;
        }
    }

}
