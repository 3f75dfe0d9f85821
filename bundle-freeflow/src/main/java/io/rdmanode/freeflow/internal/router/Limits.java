// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

/**
 * Per-tenant quotas; replaced live (a lower limit refuses new objects, existing ones stay).
 * {@code maxCompletionsPerPoll} (0 = as many as asked) caps the work completions one POLL_CQ returns: the genuine
 * Freeflow client's {@code ibv_exp_poll_cq} writes 48-byte {@code ibv_wc}s into the caller's 88-byte
 * {@code ibv_exp_wc} array, so an MLNX exp-verbs application (the FFL's own {@code ibv_rc_pingpong}) misreads every
 * completion after the first; answering one at a time is legal verbs behaviour and makes such applications work.
 */
public record Limits(long maxMrBytes, int maxMrs, int maxQps, int maxCqs, int maxPds, int maxMailboxes,
                     int maxQpWr, int maxCqe, int maxSge, int maxCompletionsPerPoll, int maxChannels,
                     long maxShmBytes) {

    /** Completion channels per tenant and shared memory per tenant (MR files and mailboxes) of {@link #defaults}. */
    static final int DEFAULT_CHANNELS = 64;
    static final long DEFAULT_SHM_BYTES = 8L << 30;

    public Limits(long maxMrBytes, int maxMrs, int maxQps, int maxCqs, int maxPds, int maxMailboxes,
                  int maxQpWr, int maxCqe, int maxSge) {
        this(maxMrBytes, maxMrs, maxQps, maxCqs, maxPds, maxMailboxes, maxQpWr, maxCqe, maxSge, 0);
    }

    public Limits(long maxMrBytes, int maxMrs, int maxQps, int maxCqs, int maxPds, int maxMailboxes,
                  int maxQpWr, int maxCqe, int maxSge, int maxCompletionsPerPoll) {
        this(maxMrBytes, maxMrs, maxQps, maxCqs, maxPds, maxMailboxes, maxQpWr, maxCqe, maxSge, maxCompletionsPerPoll,
                DEFAULT_CHANNELS, DEFAULT_SHM_BYTES);
    }

    /** These limits with other channel and shared-memory caps. */
    public Limits withChannels(int channels, long shmBytes) {
        return new Limits(maxMrBytes, maxMrs, maxQps, maxCqs, maxPds, maxMailboxes, maxQpWr, maxCqe, maxSge,
                maxCompletionsPerPoll, channels, shmBytes);
    }

    /**
     * Generous quotas with uncapped polls, for routers built in code (tests, benchmarks). The component's
     * configuration caps polls at 1 by default, for the genuine client's exp-verbs applications.
     */
    public static Limits defaults() {
        return new Limits(1L << 30, 4096, 1024, 1024, 256, 2048, 16384, 65536, 32, 0, DEFAULT_CHANNELS, DEFAULT_SHM_BYTES);
    }

    /** How many completions a poll asking for {@code ne} may return. */
    public int completionsFor(int ne) {
        return maxCompletionsPerPoll > 0 ? Math.min(ne, maxCompletionsPerPoll) : ne;
    }
}
