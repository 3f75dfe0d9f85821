// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

/** A CNI error result: the spec's code (1-11, 50/51) or ours (100+), a message and optional details. */
final class CniError extends Exception {

    private static final long serialVersionUID = 1L;
    static final int INCOMPATIBLE_VERSION = 1;
    static final int UNSUPPORTED_FIELD = 2;
    static final int UNKNOWN_CONTAINER = 3;
    static final int INVALID_ENV = 4;
    static final int IO_FAILURE = 5;
    static final int DECODE = 6;
    static final int INVALID_CONFIG = 7;
    static final int TRY_AGAIN = 11;
    static final int NOT_AVAILABLE = 50;
    /** Plugin-specific: the deviceID names no RDMA device discovery knows. */
    static final int NO_RDMA_DEVICE = 100;
    /** Plugin-specific: the RDMA subsystem is not in exclusive netns mode. */
    static final int NOT_EXCLUSIVE = 101;
    /** Plugin-specific: the kernel refused to move the device (errno in the message). */
    static final int MOVE_FAILED = 102;
    /** Plugin-specific: CHECK found the attachment missing or the device elsewhere. */
    static final int CHECK_FAILED = 103;
    /** Plugin-specific: the device is already in another attachment. */
    static final int DEVICE_BUSY = 104;

    final int code;
    final String details;

    CniError(int code, String message) {
        this(code, message, "");
    }

    CniError(int code, String message, String details) {
        super(message);
        this.code = code;
        this.details = details;
    }
}
