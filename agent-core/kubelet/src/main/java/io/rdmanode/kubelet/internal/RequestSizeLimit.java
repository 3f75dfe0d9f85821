// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.kubelet.Device;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The largest request one resource accepts, derived from the largest request kubelet can legitimately send it.
 * The biggest are GetPreferredAllocation (every available ID plus the must-include IDs, up to every device twice)
 * and Allocate of every device; each ID costs its length plus 2 bytes of protobuf framing (tag and length, IDs
 * are at most 63 bytes). kubelet sends one container per call; the margin of {@link #CONTAINERS} covers a client
 * that batches. The result is at least {@link #FLOOR} (small pools: no legitimate request comes near it) and at
 * most the transport's ceiling ({@link CallLimits#messageCeiling}).
 *
 * <p>It is recomputed on every device-list change and only grows while the server runs: the transport limit of a
 * gRPC server is fixed when it binds, and binding again would make kubelet mark the resource unallocatable, so
 * the transport reads up to the ceiling and this limit is checked on the first bytes of each request, before any
 * heap copy ({@link WireMessages}). It does not shrink, so a request kubelet built from the list sent a moment
 * before a device left is still read.
 */
final class RequestSizeLimit {

    static final int FLOOR = 64 << 10;
    static final int CONTAINERS = 2;
    private static final int FRAMING_PER_ID = 2;
    private static final int FRAMING_PER_CONTAINER = 32;

    private final int ceiling;
    private volatile int limit = FLOOR;

    RequestSizeLimit(int ceiling) {
        this.ceiling = ceiling;
    }

    /** The bytes the largest legitimate request for {@code devices} takes, with margin, floor and ceiling. */
    static long derived(int deviceCount, int longestId) {
        long perContainer = 2L * deviceCount * (longestId + FRAMING_PER_ID) + FRAMING_PER_CONTAINER;
        return Math.max(FLOOR, CONTAINERS * perContainer);
    }

    /**
     * Takes the device list in force; returns true when the limit grew past the ceiling (the caller warns: a
     * pool this large has legitimate requests the transport refuses).
     */
    synchronized boolean update(List<Device> devices) {
        int longest = devices.stream().mapToInt(d -> d.id().getBytes(StandardCharsets.UTF_8).length).max().orElse(0);
        long wanted = derived(devices.size(), longest);
        int next = (int) Math.min(ceiling, Math.max(limit, wanted));
        limit = next;
        return wanted > ceiling;
    }

    int bytes() {
        return limit;
    }
}
