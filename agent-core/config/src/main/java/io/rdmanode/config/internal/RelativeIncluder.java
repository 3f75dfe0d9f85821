// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigIncludeContext;
import com.typesafe.config.ConfigIncluder;
import com.typesafe.config.ConfigIncluderFile;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import io.rdmanode.agent.Hocon;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code include "x.conf"} (no {@code file()}) relative to the configuration file's directory, as HOCON reads it
 * from a file and as the launcher's own read does. The file is parsed from the bytes read (so its checksum names
 * what is applied), and a string parse has no directory: the include was looked for on the class path, found
 * nowhere and, being optional, silently dropped, so live reload and check-config ignored what --print-setting
 * showed. Every included file is held to the same size limit as the configuration file.
 */
final class RelativeIncluder implements ConfigIncluder, ConfigIncluderFile {

    /** Files deep that includes may go; a deeper chain is refused rather than followed. */
    static final int MAX_INCLUDE_DEPTH = 16;

    private final Path directory;
    /** The files being read, outermost first: a file that includes one of them is a cycle. */
    private final List<Path> chain;

    /** @param file the configuration file whose includes this resolves */
    RelativeIncluder(Path file) {
        this(file.toAbsolutePath().getParent(), List.of(real(file.toAbsolutePath())));
    }

    private RelativeIncluder(Path directory, List<Path> chain) {
        this.directory = directory;
        this.chain = chain;
    }

    @Override
    public ConfigIncluder withFallback(ConfigIncluder fallback) {
        return this;                                    // class path and URL includes keep the library's own
    }

    @Override
    public ConfigObject include(ConfigIncludeContext context, String what) {
        Path named = Path.of(what);
        return includeFile(context, (named.isAbsolute() ? named : directory.resolve(named)).toFile());
    }

    @Override
    public ConfigObject includeFile(ConfigIncludeContext context, File file) {
        Path path = file.toPath().isAbsolute() ? file.toPath() : directory.resolve(file.toPath());
        try {
            long size = Files.size(path);
            if (size > Hocon.MAX_FILE_BYTES) {
                throw new ConfigException.Generic("included file " + path + ": " + Hocon.tooLarge(size));
            }
        } catch (IOException missing) {
            // parseFile says whether that is allowed (include required(...)) and names the file
        }
        // A file that includes itself, directly or through others, was followed until the heap ran out
        // (OutOfMemoryError: a live edit ended the agent, check-config died with exit 3).
        Path real = real(path);
        if (chain.contains(real)) {
            throw new ConfigException.Generic("include cycle: " + describe(chain) + " -> " + path);
        }
        if (chain.size() >= MAX_INCLUDE_DEPTH) {
            throw new ConfigException.Generic("includes nested more than " + MAX_INCLUDE_DEPTH + " files deep: "
                    + describe(chain) + " -> " + path);
        }
        List<Path> deeper = new ArrayList<>(chain);
        deeper.add(real);
        ConfigParseOptions options = context.parseOptions().setOriginDescription(null)
                .setIncluder(new RelativeIncluder(directory, List.copyOf(deeper)));
        return ConfigFactory.parseFile(path.toFile(), options).root();
    }

    private static Path real(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            return path.normalize();
        }
    }

    private static String describe(List<Path> chain) {
        return String.join(" -> ", chain.stream().map(Path::toString).toList());
    }
}
