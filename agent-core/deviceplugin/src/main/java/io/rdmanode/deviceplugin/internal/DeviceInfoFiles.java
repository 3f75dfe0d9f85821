// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.rdmanode.deviceplugin.DeviceInfo;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Device Plugin Device Information files of the NPWG Device Information Specification 1.1.0 (§4.1):
 * {@code <dir>/<resourceName>-<deviceID>-device.json}, every {@code /} replaced by {@code -}, content
 * {@code {"type":"pci","version":"1.1.0","pci":{"pci-address":…,"pf-pci-address":…,"rdma-device":…}}}.
 * Multus copies the file for the CNI. Written to a temporary name and renamed into place, so a reader never sees
 * half a file, and the temporary file is removed on every failure (ENOSPC included); mode 0444 as the reference
 * helper writes it. One instance per served resource ({@link Served}).
 */
final class DeviceInfoFiles {

    static final String VERSION = "1.1.0";
    private static final JsonFactory JSON = new JsonFactory();
    private static final String SUFFIX = "-device.json";

    private final Path dir;
    private final String resourceName;
    /** Device ID to what this instance last wrote there, and the file it made (kubelet's Allocate path). */
    private final Map<String, Written> lastWritten = new ConcurrentHashMap<>();

    private record Written(DeviceInfo info, Object fileKey) {
    }

    DeviceInfoFiles(Path dir, String resourceName) {
        this.dir = dir;
        this.resourceName = resourceName;
    }

    Path dir() {
        return dir;
    }

    Path file(String deviceId) {
        return dir.resolve(prefix() + deviceId.replace('/', '-') + SUFFIX);
    }

    private String prefix() {
        return resourceName.replace('/', '-') + "-";
    }

    /** The file's JSON: PCI address, PF address for a VF, RDMA device when it has one. */
    static String content(DeviceInfo info) {
        StringWriter out = new StringWriter();
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("type", "pci");
            json.writeStringField("version", VERSION);
            json.writeObjectFieldStart("pci");
            json.writeStringField("pci-address", info.pciAddress());
            if (info.pfPciAddress().isPresent()) {
                json.writeStringField("pf-pci-address", info.pfPciAddress().get());
            }
            if (!info.rdmaDevices().isEmpty()) {
                json.writeStringField("rdma-device", String.join(",", info.rdmaDevices()));
            }
            json.writeEndObject();
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);           // a StringWriter does not fail
        }
        return out.toString();
    }

    /**
     * Writes (or replaces) the file of {@code vf}. A file this instance wrote with the same content and that is
     * still there (the same inode) is left as it is: every Allocate of a VF writes the same facts, and on the
     * Allocate path one {@code stat} costs much less than a create, write, chmod and rename under the pool's lock
     * with 50 containers starting at once.
     */
    Path write(DeviceInfo info) throws IOException {
        String id = info.pciAddress();
        Path target = file(id);
        if (current(info)) {
            return target;
        }
        String content = content(info);
        lastWritten.remove(id);
        Files.createDirectories(dir);
        // A temporary name of its own per call: two Allocates of one VF at once must not share it.
        Path tmp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
        try {                                          // every failure (ENOSPC at write included) removes it
            Files.writeString(tmp, content);
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("r--r--r--"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system: the default mode stays
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        Object key = fileKey(target);
        if (key != null) {
            lastWritten.put(id, new Written(info, key));
        }
        return target;
    }

    /** Whether the file of {@code info} is there as this instance last wrote it, with this content: one stat. */
    boolean current(DeviceInfo info) {
        Written last = lastWritten.get(info.pciAddress());
        return last != null && last.info().equals(info) && last.fileKey().equals(fileKey(file(info.pciAddress())));
    }

    /** The file's identity (device and inode), null when it is absent or the file system has none. */
    private static Object fileKey(Path f) {
        try {
            return Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    boolean exists(String deviceId) {
        return Files.exists(file(deviceId));
    }

    /** Removes the file of {@code deviceId}; true when there was one. */
    boolean remove(String deviceId) throws IOException {
        lastWritten.remove(deviceId);
        return Files.deleteIfExists(file(deviceId));
    }

    /** Device IDs of this resource with a file in the directory. */
    List<String> written() throws IOException {
        List<String> ids = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return ids;
        }
        String prefix = prefix();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                if (name.startsWith(prefix) && name.endsWith(SUFFIX)) {
                    ids.add(name.substring(prefix.length(), name.length() - SUFFIX.length()));
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    /** Removes every file of this resource whose device ID is not in {@code keep}; returns the removed IDs. */
    List<String> removeAllBut(Set<String> keep) throws IOException {
        List<String> removed = new ArrayList<>();
        for (String id : written()) {
            if (!keep.contains(id) && remove(id)) {
                removed.add(id);
            }
        }
        return removed;
    }
}
