// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The distribution's {@code optional/} bundles (today the DRA driver: it embeds the Kubernetes client, 18 MB that
 * every start would read) are installed when the configuration switches them on by name,
 * {@code agent.bundles.<name>.enabled = true}, beside the jars of {@code bundles/}; in a container image, where
 * {@code bundles/} is part of the image, that switch in the ConfigMap is the way to turn one on. An operator may
 * still copy the jar into {@code bundles/} instead (installed live); then that copy is the one installed. The
 * switch is read when the agent starts: a later edit to it takes effect at the next start.
 */
final class OptionalBundles {

    private static final Logger LOG = LoggerFactory.getLogger(OptionalBundles.class);
    static final String PREFIX = "rdma-agent-";

    private OptionalBundles() {
    }

    /** {@code optional/} beside {@code bundles/}. */
    static Path dirBeside(Path bundlesDir) {
        return bundlesDir.resolveSibling("optional");
    }

    /**
     * The jars of {@code optional} named by {@code enabled} ({@code rdma-agent-<name>.jar}), except those with a
     * jar of the same file name in {@code bundles} (installed from there). Names with no optional jar are
     * skipped: they are the installed bundles' own switches.
     */
    static List<Path> selected(Path optional, Path bundles, Set<String> enabled) {
        List<Path> jars = new ArrayList<>();
        for (String name : new TreeSet<>(enabled)) {
            Path jar = optional.resolve(PREFIX + name + ".jar");
            if (!Files.isRegularFile(jar)) {
                continue;
            }
            if (Files.exists(bundles.resolve(jar.getFileName()))) {
                LOG.info("optional bundle {} is in {} too: installed from there", name, bundles);
                continue;
            }
            jars.add(jar);
        }
        return jars;
    }
}
