// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Files replaced whole and durably: a temporary file in the same directory, written and fsynced, renamed over the
 * old one, then the directory fsynced, so that after a crash or power loss the file is the old or the new
 * content, never half of either, and a prepared claim the driver answered for is on disk.
 */
final class DurableFiles {

    private DurableFiles() {
    }

    static void write(Path file, String content) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer bytes = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    ch.write(bytes);
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            syncDirectory(dir);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Removes the file and makes the removal durable. */
    static boolean delete(Path file) throws IOException {
        boolean deleted = Files.deleteIfExists(file);
        if (deleted) {
            syncDirectory(file.toAbsolutePath().getParent());
        }
        return deleted;
    }

    /** Linux lets a directory be opened read-only and fsynced: that makes a rename in it durable. */
    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
