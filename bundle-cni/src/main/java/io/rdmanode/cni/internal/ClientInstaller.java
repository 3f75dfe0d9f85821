// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Optional;

/**
 * Installs the bundle's native/rdma into the CNI bin dir: the socket path is written into the executable's
 * 108-byte slot (after its marker) and the CNI state dir into its 256-byte one (a DEL while the agent is down
 * looks there for a recorded attachment, so the executable and the agent always agree on it), then the file goes in atomically (temp name in the same directory, fsync,
 * rename) when it is missing or differs (an older client, another socket path). A runtime exec'ing the
 * plugin at that moment sees the old file or the new one, never a partial one.
 */
final class ClientInstaller {

    static final String SOCKET_MARKER = "@@RDMA_AGENT_CNI_SOCKET@@";
    static final String VERSION_MARKER = "@@RDMA_CNI_CLIENT_VERSION@@";
    static final int SLOT = 108;
    static final String STATE_DIR_MARKER = "@@RDMA_AGENT_CNI_STATE_DIR@@";
    static final int STATE_DIR_SLOT = 256;
    static final String LIMITS_MARKER = "@@RDMA_AGENT_CNI_LIMITS@@";
    static final int LIMITS_SLOT = 64;

    /** What the executable learns from cni.clientTimeout and cni.maxRequestBytes, written into its limits slot. */
    record Limits(long timeoutMillis, long maxRequestBytes) {

        static final Limits DEFAULTS = new Limits(30_000, 1 << 20);

        String slotValue() {
            return "timeout_ms=" + timeoutMillis + " max_request=" + maxRequestBytes;
        }
    }

    record Result(Path target, String action, String installedVersion) {
    }

    static byte[] bundled() throws IOException {
        try (InputStream in = ClientInstaller.class.getResourceAsStream("/native/rdma")) {
            if (in == null) {
                throw new IOException("the bundle has no native/rdma (built without gcc?)");
            }
            return in.readAllBytes();
        }
    }

    /** The client with {@code socket} and {@code stateDir} in their slots, and the default limits. */
    static byte[] patched(byte[] client, String socket, String stateDir) throws IOException {
        return patched(client, socket, stateDir, Limits.DEFAULTS);
    }

    /** The client with {@code socket}, {@code stateDir} and {@code limits} in their slots. */
    static byte[] patched(byte[] client, String socket, String stateDir, Limits limits) throws IOException {
        byte[] out = client.clone();
        patch(out, SOCKET_MARKER, SLOT, socket, "socket path");
        patch(out, STATE_DIR_MARKER, STATE_DIR_SLOT, stateDir, "CNI state dir");
        patch(out, LIMITS_MARKER, LIMITS_SLOT, limits.slotValue(), "limits");
        return out;
    }

    private static void patch(byte[] client, String slotMarker, int slot, String value, String what)
            throws IOException {
        byte[] marker = slotMarker.getBytes(StandardCharsets.US_ASCII);
        int at = indexOf(client, marker);
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (at < 0) {
            throw new IOException("native/rdma has no " + what + " slot");
        }
        if (marker.length + bytes.length >= slot) {
            throw new IOException(what + " " + value + " is longer than " + (slot - marker.length - 1) + " bytes");
        }
        Arrays.fill(client, at + marker.length, at + slot, (byte) 0);
        System.arraycopy(bytes, 0, client, at + marker.length, bytes.length);
    }

    /** The value in an installed client's slot (socket or state dir), or empty when it has none. */
    static Optional<String> slot(Path target, String slotMarker) {
        try {
            byte[] client = Files.readAllBytes(target);
            int at = indexOf(client, slotMarker.getBytes(StandardCharsets.US_ASCII));
            if (at < 0) {
                return Optional.empty();
            }
            int start = at + slotMarker.length();
            int end = start;
            while (end < client.length && client[end] != 0) {
                end++;
            }
            return Optional.of(new String(client, start, end - start, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static Result install(Path binDir, String socket, String stateDir) throws IOException {
        return install(binDir, socket, stateDir, Limits.DEFAULTS);
    }

    static Result install(Path binDir, String socket, String stateDir, Limits limits) throws IOException {
        byte[] wanted = patched(bundled(), socket, stateDir, limits);
        Path target = binDir.resolve("rdma");
        if (Files.isRegularFile(target) && Arrays.equals(Files.readAllBytes(target), wanted)) {
            return new Result(target, "up to date", version(wanted));
        }
        Files.createDirectories(binDir);
        Path tmp = binDir.resolve(".rdma.tmp-" + ProcessHandle.current().pid());
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(wanted));
            ch.force(true);
        }
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        String action = Files.exists(target) ? "replaced " + installedVersion(target) : "installed";
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return new Result(target, action, version(wanted));
    }

    /** The version an installed client reports, or {@code none}/{@code unknown}. */
    static String installedVersion(Path target) {
        try {
            return Files.isRegularFile(target) ? version(Files.readAllBytes(target)) : "none";
        } catch (IOException e) {
            return "unknown";
        }
    }

    static String version(byte[] client) {
        byte[] marker = VERSION_MARKER.getBytes(StandardCharsets.US_ASCII);
        int at = indexOf(client, marker);
        if (at < 0) {
            return "unknown";
        }
        int end = at + marker.length;
        while (end < client.length && client[end] != 0) {
            end++;
        }
        return new String(client, at + marker.length, end - at - marker.length, StandardCharsets.US_ASCII);
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
