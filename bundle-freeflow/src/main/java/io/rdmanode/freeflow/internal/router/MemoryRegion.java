// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import java.nio.ByteBuffer;

/** A registered MR: its shm file (mapped over the application's buffer by the client), PD, key and access. */
final class MemoryRegion {
    static final int LOCAL_WRITE = 1;
    static final int REMOTE_WRITE = 2;
    static final int REMOTE_READ = 4;

    final Tenant tenant;
    final int handle;
    final int key;
    final int pd;
    final int access;
    final ShmFile file;
    final ByteBuffer buf;
    final long size;
    /** The application's address of the MR (REG_MR_MAPPING): remote addresses are relative to it. */
    volatile long appBase;
    /** Deregistered: a cached reference must not be used any more (router-guarded). */
    boolean deregistered;

    MemoryRegion(Tenant tenant, int handle, int key, int pd, int access, ShmFile file) {
        this.tenant = tenant;
        this.handle = handle;
        this.key = key;
        this.pd = pd;
        this.access = access;
        this.file = file;
        this.buf = file.buffer();
        this.size = file.size();
    }

    boolean contains(long offset, long length) {
        return offset >= 0 && length >= 0 && offset <= size && length <= size - offset;
    }
}
