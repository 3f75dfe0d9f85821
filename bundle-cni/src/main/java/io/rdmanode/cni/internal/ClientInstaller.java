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

/**
 * Installs the bundle's native/rdma into the CNI bin dir: the socket path is written into the executable's
 * 108-byte slot (after its marker), then the file goes in atomically (temp name in the same directory, fsync,
 * rename) when it is missing or differs (an older client, another socket path). A runtime exec'ing the
 * plugin at that moment sees the old file or the new one, never a partial one.
 */
final class ClientInstaller {

    static final String SOCKET_MARKER = "@@RDMA_AGENT_CNI_SOCKET@@";
    static final String VERSION_MARKER = "@@RDMA_CNI_CLIENT_VERSION@@";
    static final int SLOT = 108;

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

    /** The client with {@code socket} in its slot. */
    static byte[] patched(byte[] client, String socket) throws IOException {
        byte[] marker = SOCKET_MARKER.getBytes(StandardCharsets.US_ASCII);
        int at = indexOf(client, marker);
        byte[] path = socket.getBytes(StandardCharsets.UTF_8);
        if (at < 0) {
            throw new IOException("native/rdma has no socket slot");
        }
        if (marker.length + path.length >= SLOT) {
            throw new IOException("socket path " + socket + " is longer than " + (SLOT - marker.length - 1) + " bytes");
        }
        byte[] out = client.clone();
        Arrays.fill(out, at + marker.length, at + SLOT, (byte) 0);
        System.arraycopy(path, 0, out, at + marker.length, path.length);
        return out;
    }

    static Result install(Path binDir, String socket) throws IOException {
        byte[] wanted = patched(bundled(), socket);
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
