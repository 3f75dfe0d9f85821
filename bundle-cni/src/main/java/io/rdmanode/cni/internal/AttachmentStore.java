// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JSON file per attachment in a 0700 directory. A write goes to a temp file renamed over the old one, so a
 * reader (or the agent after a crash) sees the old or the new state, never half of one. A durable write also
 * fsyncs the file before and the directory after the rename, so the state survives a machine crash too. Only
 * what the runtime is told needs that: after a machine crash every pod namespace is gone and the kernel has
 * every RDMA device back, so an intent or a deletion lost then is harmless, and reconciliation drops state whose
 * namespace is gone. A file that does not parse is moved aside (*.corrupt) and logged.
 *
 * <p>{@code <key>.del} next to an attachment is a tombstone: the rdma executable writes it (temp file, fsync,
 * rename) when a DEL finds the agent unreachable and the attachment recorded; the agent finishes that DEL at
 * start ({@link CniHandler#finishDeletesRequestedWhileDown()}).
 */
final class AttachmentStore {

    private static final Logger LOG = LoggerFactory.getLogger(AttachmentStore.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path dir;

    AttachmentStore(Path dir) throws IOException {
        this.dir = dir;
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        sweepTempFiles();
    }

    /** A write cut by a crash leaves its temp file (the state itself is the old file or the new one): drop it. */
    private void sweepTempFiles() {
        try (DirectoryStream<Path> tmps = Files.newDirectoryStream(dir, ".*.tmp")) {
            for (Path t : tmps) {
                Files.deleteIfExists(t);
                LOG.info("removed {}, left by a state write the previous agent did not finish", t);
            }
        } catch (IOException e) {
            LOG.warn("cannot clean temp files in {}: {}", dir, e.toString());
        }
    }

    /** A DEL the executable could not hand to the agent; {@code netns} is the runtime's CNI_NETNS, maybe empty. */
    record Tombstone(String key, String netns, Instant requestedAt) {
    }

    List<Tombstone> tombstones() {
        List<Tombstone> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.del")) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                out.add(tombstone(f, name.substring(0, name.length() - 4)));
            }
        } catch (IOException e) {
            LOG.warn("cannot list CNI tombstones in {}: {}", dir, e.toString());
        }
        return out;
    }

    private static Tombstone tombstone(Path f, String key) {
        try {
            JsonNode o = JSON.readTree(f.toFile());
            return new Tombstone(key, o.path("netns").asText(""), Instant.ofEpochSecond(o.path("requestedAt").asLong()));
        } catch (IOException | RuntimeException e) {
            // The name is what counts; the body is for the log.
            return new Tombstone(key, "", Instant.EPOCH);
        }
    }

    void deleteTombstone(String key) throws IOException {
        Files.deleteIfExists(dir.resolve(key + ".del"));
    }

    Path dir() {
        return dir;
    }

    Optional<Attachment> read(String key) {
        Path f = dir.resolve(key + ".json");
        if (!Files.exists(f)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Attachment.fromJson(JSON.readTree(f.toFile())));
        } catch (IOException | RuntimeException e) {
            quarantine(f, e);
            return Optional.empty();
        }
    }

    List<Attachment> all() {
        List<Attachment> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                read(name.substring(0, name.length() - 5)).ifPresent(out::add);
            }
        } catch (IOException e) {
            LOG.warn("cannot list CNI state in {}: {}", dir, e.toString());
        }
        return out;
    }

    void write(Attachment a, boolean durable) throws IOException {
        Path target = dir.resolve(a.key() + ".json");
        Path tmp = dir.resolve("." + a.key() + ".tmp");
        byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(a.toJson());
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(bytes));
            if (durable) {
                ch.force(true);
            }
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (durable) {
            syncDir();
        }
    }

    void delete(String key) throws IOException {
        Files.deleteIfExists(dir.resolve(key + ".json"));
    }

    private void syncDir() throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    private void quarantine(Path f, Exception e) {
        LOG.error("CNI state file {} is unreadable ({}); moved aside as .corrupt", f, e.toString());
        try {
            Files.move(f, f.resolveSibling(f.getFileName() + ".corrupt"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException ignored) {
            // Left in place: the next read reports it again.
        }
    }
}
