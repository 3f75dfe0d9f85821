// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.mapping;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Where this process maps a file, from {@code /proc/self/maps}: the router's own address of an MR's pages, which
 * an announcement carries (a remote NIC writes there). The JDK gives a mapped buffer's address only through
 * internal API; the kernel's list is the public source.
 */
public final class ProcMaps {

    private ProcMaps() {
    }

    /** The start of the first mapping of {@code file} (also once unlinked: "(deleted)"); empty when none. */
    public static OptionalLong startOf(Path file) {
        return startOf(Path.of("/proc/self/maps"), file);
    }

    static OptionalLong startOf(Path maps, Path file) {
        String name = file.toAbsolutePath().normalize().toString();
        try (BufferedReader r = Files.newBufferedReader(maps, StandardCharsets.US_ASCII)) {
            for (String line; (line = r.readLine()) != null; ) {
                int slash = line.indexOf('/');
                if (slash < 0) {
                    continue;
                }
                String path = line.substring(slash);
                if (path.equals(name) || path.equals(name + " (deleted)")) {
                    return OptionalLong.of(Long.parseUnsignedLong(line.substring(0, line.indexOf('-')), 16));
                }
            }
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
        return OptionalLong.empty();
    }
}
