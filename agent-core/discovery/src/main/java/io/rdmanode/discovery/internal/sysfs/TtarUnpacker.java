// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Unpacks a recorded host ({@code .ttar}) for the demo: {@code java -cp agent-discovery.jar
 * io.rdmanode.discovery.internal.sysfs.TtarUnpacker <archive> <destDir>}. Afterwards point discovery at
 * {@code sysfsRoot = <destDir>/sys} and {@code devRoot = <destDir>/dev}. Depends on nothing but the JDK.
 */
public final class TtarUnpacker {

    private TtarUnpacker() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: TtarUnpacker <archive.ttar> <destDir>");
        }
        Ttar.unpack(Path.of(args[0]), Path.of(args[1]));
    }
}
