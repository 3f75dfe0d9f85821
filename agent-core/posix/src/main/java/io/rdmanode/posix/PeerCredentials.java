// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.posix;

/** {@code struct ucred} of a Unix socket's peer, as the kernel recorded it at connect(2): it cannot be forged. */
public record PeerCredentials(int pid, int uid, int gid) {
}
