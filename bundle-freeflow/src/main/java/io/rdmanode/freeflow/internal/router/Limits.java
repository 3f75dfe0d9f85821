// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

/** Per-tenant quotas; replaced live (a lower limit refuses new objects, existing ones stay). */
public record Limits(long maxMrBytes, int maxMrs, int maxQps, int maxCqs, int maxPds, int maxMailboxes,
                     int maxQpWr, int maxCqe, int maxSge) {

    public static Limits defaults() {
        return new Limits(1L << 30, 4096, 1024, 1024, 256, 2048, 16384, 65536, 32);
    }
}
