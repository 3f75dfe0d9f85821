// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.posix;

/** SO_PEERCRED of a Unix connection: who the kernel says is on the other end (cannot be forged by the client). */
public record PeerCred(int pid, int uid, int gid) {
}
