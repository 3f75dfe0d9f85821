// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The checkpoint of prepared claims ({@code <stateDir>/dra-prepared.json}): kubelet calls Prepare again after a
 * restart of either side and Unprepare for claims prepared by an earlier process, so what was answered is on
 * disk (written durably, see {@link DurableFiles}) before the answer leaves. During a handover two agents serve
 * kubelet at once (kubelet may call either instance of a driver during a rolling update), so every call works
 * under {@link #lock()}: a POSIX lock on {@code <file>.lock} across processes, the file read again when another
 * process wrote it since. Not thread-safe otherwise: the preparer serialises calls.
 */
final class PreparedClaims {

    static final int VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One prepared claim. */
    record Prepared(String namespace, String name, String uid, List<PreparedDevice> devices, List<String> podUids) {
        Prepared {
            devices = List.copyOf(devices);
            podUids = List.copyOf(podUids);
        }

        Prepared(String namespace, String name, String uid, List<PreparedDevice> devices) {
            this(namespace, name, uid, devices, List.of());
        }
    }

    private final Path file;
    private final Map<String, Prepared> byUid = new LinkedHashMap<>();

    /**
     * Reads the checkpoint; none yet is an empty one.
     *
     * @throws IOException when it exists but cannot be read or parsed: starting without it would forget
     *                     prepared claims, so the driver does not start (the message names the file)
     */
    PreparedClaims(Path file) throws IOException {
        this.file = file;
        if (Files.exists(file)) {
            load();
            seen = identity();
        }
    }

    /** What the file was when this instance last read or wrote it (inode, size, modification time). */
    private String seen = "";

    /**
     * Excludes the other agent of a handover for the length of one call, and reads the checkpoint again when it was
     * written by the other since this instance last saw it. Close the handle to release.
     *
     * @throws IOException when the lock cannot be taken or the checkpoint written by the other cannot be read
     */
    Lock lock() throws IOException {
        Path lockFile = file.toAbsolutePath().resolveSibling(file.getFileName() + ".lock");
        // POSIX locks belong to the process (the JDK refuses a second one on a file): other instances of this JVM
        // (tests, a component restarted while a call finishes) queue on a lock per file first.
        java.util.concurrent.locks.ReentrantLock inJvm = IN_JVM.computeIfAbsent(lockFile.toString(),
                k -> new java.util.concurrent.locks.ReentrantLock());
        inJvm.lock();
        java.nio.channels.FileChannel ch;
        try {
            Files.createDirectories(lockFile.getParent());
            ch = java.nio.channels.FileChannel.open(lockFile, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.WRITE);
        } catch (IOException | RuntimeException e) {
            inJvm.unlock();
            throw e;
        }
        java.nio.channels.FileLock held;
        try {
            held = ch.lock();
        } catch (IOException | RuntimeException e) {
            try {
                ch.close();
            } finally {
                inJvm.unlock();
            }
            throw e;
        }
        Lock lock = () -> {
            try {
                held.release();
            } finally {
                try {
                    ch.close();
                } finally {
                    inJvm.unlock();
                }
            }
        };
        try {
            String now = identity();
            if (!now.equals(seen)) {
                byUid.clear();
                if (Files.exists(file)) {
                    load();
                }
                seen = now;
            }
            return lock;
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    private static final java.util.concurrent.ConcurrentMap<String, java.util.concurrent.locks.ReentrantLock> IN_JVM =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** A held {@link #lock()}. */
    interface Lock extends AutoCloseable {
        @Override
        void close() throws IOException;
    }

    private String identity() {
        try {
            Map<String, Object> a = Files.readAttributes(file, "unix:ino,size,lastModifiedTime");
            return a.get("ino") + ":" + a.get("size") + "@" + a.get("lastModifiedTime");
        } catch (IOException | UnsupportedOperationException e) {
            return "";
        }
    }

    Optional<Prepared> get(String uid) {
        return Optional.ofNullable(byUid.get(uid));
    }

    List<Prepared> all() {
        return List.copyOf(byUid.values());
    }

    /** The PCI addresses prepared for the pod {@code podUid}, claim by claim in the order they were prepared. */
    List<String> devicesOfPod(String podUid) {
        return byUid.values().stream().filter(p -> p.podUids().contains(podUid))
                .flatMap(p -> p.devices().stream().map(PreparedDevice::pciAddress)).toList();
    }

    /** The prepared claim other than {@code uid} that holds the device at {@code pciAddress}. */
    Optional<Prepared> holderOf(String pciAddress, String uid) {
        return byUid.values().stream().filter(p -> !p.uid().equals(uid))
                .filter(p -> p.devices().stream().anyMatch(d -> d.pciAddress().equals(pciAddress))).findFirst();
    }

    void put(Prepared claim) throws IOException {
        Prepared before = byUid.put(claim.uid(), claim);
        try {
            save();
        } catch (IOException e) {
            if (before == null) {
                byUid.remove(claim.uid());
            } else {
                byUid.put(claim.uid(), before);
            }
            throw e;
        }
    }

    void remove(String uid) throws IOException {
        Prepared before = byUid.remove(uid);
        if (before == null) {
            return;
        }
        try {
            save();
        } catch (IOException e) {
            byUid.put(uid, before);
            throw e;
        }
    }

    private void save() throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", VERSION);
        ArrayNode claims = root.putArray("claims");
        for (Prepared p : byUid.values()) {
            ObjectNode c = claims.addObject();
            c.put("namespace", p.namespace());
            c.put("name", p.name());
            c.put("uid", p.uid());
            p.podUids().forEach(c.putArray("pods")::add);
            ArrayNode devices = c.putArray("devices");
            for (PreparedDevice d : p.devices()) {
                ObjectNode o = devices.addObject();
                d.requests().forEach(o.putArray("requests")::add);
                o.put("pool", d.pool());
                o.put("device", d.device());
                d.cdiIds().forEach(o.putArray("cdiIds")::add);
                o.put("pciAddress", d.pciAddress());
                o.put("rdmaDevice", d.rdmaDevice());
            }
        }
        DurableFiles.write(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
        seen = identity();
    }

    private void load() throws IOException {
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new IOException("cannot read the prepared-claims checkpoint " + file + ": " + e.getMessage(), e);
        }
        if (root == null || root.path("version").asInt() != VERSION || !root.path("claims").isArray()) {
            throw new IOException("the prepared-claims checkpoint " + file + " is not version " + VERSION
                    + " with a claims list");
        }
        for (JsonNode c : root.path("claims")) {
            List<PreparedDevice> devices = new ArrayList<>();
            for (JsonNode d : c.path("devices")) {
                devices.add(new PreparedDevice(strings(d.path("requests")), text(d, "pool"), text(d, "device"),
                        strings(d.path("cdiIds")), text(d, "pciAddress"), text(d, "rdmaDevice")));
            }
            Prepared p = new Prepared(text(c, "namespace"), text(c, "name"), text(c, "uid"), devices,
                    strings(c.path("pods")));
            byUid.put(p.uid(), p);
        }
    }

    private String text(JsonNode node, String field) throws IOException {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual()) {
            throw new IOException("the prepared-claims checkpoint " + file + " has an entry without '" + field + "'");
        }
        return v.asText();
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
