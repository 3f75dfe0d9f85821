// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.posix;

/**
 * A libc call failed. The message names the call, its object and the reason with the errno's name:
 * {@code open /var/run/netns/x: No such file or directory (ENOENT)}; {@link #errno()} is the number, to test
 * against {@link Errno}'s constants, and {@link #reason()} the part after the call, for callers that put the
 * failure into their own words.
 */
public final class PosixException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int errno;
    private final String reason;

    /** {@code description} is strerror(3)'s text for {@code errno}. */
    public PosixException(String call, int errno, String description) {
        super(call + ": " + description + " (" + Errno.name(errno) + ")");
        this.errno = errno;
        this.reason = description + " (" + Errno.name(errno) + ")";
    }

    /** The kernel's errno (positive). */
    public int errno() {
        return errno;
    }

    /** {@code ENOENT}, {@code EOPNOTSUPP}, … ({@link Errno#name}). */
    public String errnoName() {
        return Errno.name(errno);
    }

    /** strerror(3) and the errno's name: {@code No such file or directory (ENOENT)}. */
    public String reason() {
        return reason;
    }
}
