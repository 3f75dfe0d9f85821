// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.posix.PeerCred;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Creates the shared-memory files clients map. Names are unguessable ({@code ff-<prefix>-<128 random bits>}),
 * files are created exclusively with mode 0600 and, when the router runs as root, given to the client's uid/gid,
 * so only that client (and root) can open them: the original's 0666 guessable names let any container map any MR.
 */
final class ShmStore {
    private static final HexFormat HEX = HexFormat.of();
    private final Path dir;
    private final String prefix;
    private final SecureRandom random = new SecureRandom();
    private final boolean root = "root".equals(System.getProperty("user.name"));
    final AtomicLong files = new AtomicLong();
    /** Every file made and not yet released, with the client process it was made for (finding who truncated one). */
    private final java.util.Map<ShmFile, Integer> owners = new java.util.concurrent.ConcurrentHashMap<>();
    final AtomicLong bytes = new AtomicLong();

    ShmStore(Path dir, String prefix) {
        this.dir = dir;
        this.prefix = prefix;
    }

    Path dir() {
        return dir;
    }

    String prefix() {
        return prefix;
    }

    ShmFile create(long size, PeerCred owner) throws IOException {
        if (size > Integer.MAX_VALUE) {
            throw new IOException("shm file of " + size + " bytes: one mapping holds at most 2 GiB");
        }
        byte[] r = new byte[16];
        random.nextBytes(r);
        String name = "ff-" + prefix + "-" + HEX.formatHex(r);
        Path path = dir.resolve(name);
        FileChannel ch = null;
        try {
            ch = FileChannel.open(path, java.util.Set.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.READ, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            if (root && owner.uid() != 0) {
                Files.setAttribute(path, "unix:uid", owner.uid());
                Files.setAttribute(path, "unix:gid", owner.gid());
            }
            MappedByteBuffer buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            files.incrementAndGet();
            bytes.addAndGet(size);
            // The channel stays open: its size says whether the client truncated the file (ShmFaults), even
            // after the client removed the name.
            ShmFile f = new ShmFile(name, path, size, buf, ch);
            owners.put(f, owner.pid());
            return f;
        } catch (IOException | RuntimeException e) {
            if (ch != null) {
                ch.close();
            }
            Files.deleteIfExists(path);
            throw new IOException("cannot create shm file " + path + " (" + size + " bytes): " + e.getMessage(), e);
        }
    }

    void release(ShmFile f) {
        owners.remove(f);
        f.unlink();
        files.decrementAndGet();
        bytes.addAndGet(-f.size());
    }

    /** The client processes holding a file that was truncated under the router's mapping ({@link ShmFaults}). */
    java.util.Set<Integer> truncatedOwners() {
        java.util.Set<Integer> pids = new java.util.TreeSet<>();
        owners.forEach((f, pid) -> {
            if (f.truncated()) {
                pids.add(pid);
            }
        });
        return pids;
    }
}
