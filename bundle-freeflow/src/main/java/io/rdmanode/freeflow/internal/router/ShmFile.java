// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/** A POSIX shared-memory file the router created and maps: an MR's pages or a mailbox. */
final class ShmFile {
    private final String name;
    private final Path path;
    private final long size;
    private MappedByteBuffer buffer;
    private final FileChannel channel;

    ShmFile(String name, Path path, long size, MappedByteBuffer buffer, FileChannel channel) {
        this.name = name;
        this.path = path;
        this.size = size;
        this.buffer = buffer;
        this.channel = channel;
        buffer.order(ByteOrder.LITTLE_ENDIAN);
    }

    String name() {
        return name;
    }

    Path path() {
        return path;
    }

    long size() {
        return size;
    }

    MappedByteBuffer buffer() {
        return buffer;
    }

    /** Removes the name; the client's mapping (and ours until unmap) stays valid. Idempotent. */
    void unlink() {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(ShmFile.class).warn("cannot unlink {}: {}", path, e.toString());
        }
    }

    /**
     * Whether the file is now shorter than the router's mapping of it: its client truncated it, and the router's
     * accesses past the new end fault (ShmFaults). Asked of the open file (fstat), never of the mapping.
     */
    boolean truncated() {
        try {
            return channel.isOpen() && channel.size() < size;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** Drops the router's mapping and its descriptor; the caller guarantees nobody uses the buffer any more. */
    void unmap() {
        MappedByteBuffer b = buffer;
        buffer = null;
        Unmapper.unmap(b, channel);
    }
}
