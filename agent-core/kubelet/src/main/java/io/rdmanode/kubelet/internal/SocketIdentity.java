// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Which file a socket path names right now: inode and modification time. A socket deleted and created again
 * is a different identity even when the file system hands out the same inode number again (ext4 reuses freed
 * inodes at once), because the modification time is that of the new bind. Not the change time: a chmod or
 * chown of a socket (ours right after bind, kubelet's by whoever) must not look like a new socket.
 */
final class SocketIdentity {

    private SocketIdentity() {
    }

    static Optional<String> of(Path path) {
        try {
            Map<String, Object> attrs = Files.readAttributes(path, "unix:ino,lastModifiedTime",
                    LinkOption.NOFOLLOW_LINKS);
            return Optional.of(attrs.get("ino") + "@" + attrs.get("lastModifiedTime"));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
