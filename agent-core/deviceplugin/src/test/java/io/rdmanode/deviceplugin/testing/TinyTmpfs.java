// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.testing;

import java.nio.file.Path;

/** A small tmpfs for full-file-system tests (root only: CI and this machine run tests as root). */
public final class TinyTmpfs {

    private TinyTmpfs() {
    }

    /** Mounts a tmpfs of {@code size} (e.g. {@code 64k}) at {@code at}; false when the machine refuses. */
    public static boolean mount(Path at, String size) throws Exception {
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", at.toString())
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor() == 0;
    }

    public static void unmount(Path at) throws Exception {
        new ProcessBuilder("umount", at.toString()).redirectErrorStream(true).start().waitFor();
    }

    /** Fills the file system at {@code at} until it has no byte left (a file {@code filler}). */
    public static void fill(Path at) throws java.io.IOException {
        try (java.io.OutputStream out = java.nio.file.Files.newOutputStream(at.resolve("filler"))) {
            byte[] block = new byte[512];
            while (true) {
                out.write(block);
                out.flush();
            }
        } catch (java.io.IOException full) {
            if (!String.valueOf(full.getMessage()).contains("No space left")) {
                throw full;
            }
        }
    }
}
