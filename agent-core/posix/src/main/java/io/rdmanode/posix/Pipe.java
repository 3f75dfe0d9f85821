// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.posix;

/** The two ends of a pipe made by {@link Posix#pipe2(int)}; the caller closes both. */
public record Pipe(int readFd, int writeFd) {
}
