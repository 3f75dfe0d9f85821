// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import java.util.concurrent.atomic.LongAdder;

/** Counters read at scrape time (rdma_agent_freeflow_*). */
public final class RouterStats {
    final LongAdder controlRequests = new LongAdder();
    final LongAdder controlErrors = new LongAdder();
    final LongAdder connections = new LongAdder();
    final LongAdder fastRequests = new LongAdder();
    final LongAdder fastErrors = new LongAdder();
    final LongAdder sendBytes = new LongAdder();
    final LongAdder writeBytes = new LongAdder();
    final LongAdder readBytes = new LongAdder();
    final LongAdder completions = new LongAdder();
    final LongAdder errorCompletions = new LongAdder();
    final LongAdder rnrNaks = new LongAdder();
    final LongAdder ucDropped = new LongAdder();
    final LongAdder cqOverflows = new LongAdder();
    final LongAdder tenantsReclaimed = new LongAdder();
    final LongAdder objectsReclaimed = new LongAdder();
    final LongAdder limitRefusals = new LongAdder();
    final LongAdder shmFaults = new LongAdder();
    final LongAdder asyncEvents = new LongAdder();
    final LongAdder asyncEventsDropped = new LongAdder();

    public long controlRequests() { return controlRequests.sum(); }
    public long controlErrors() { return controlErrors.sum(); }
    public long connections() { return connections.sum(); }
    public long fastRequests() { return fastRequests.sum(); }
    public long fastErrors() { return fastErrors.sum(); }
    public long sendBytes() { return sendBytes.sum(); }
    public long writeBytes() { return writeBytes.sum(); }
    public long readBytes() { return readBytes.sum(); }
    public long completions() { return completions.sum(); }
    public long errorCompletions() { return errorCompletions.sum(); }
    public long rnrNaks() { return rnrNaks.sum(); }
    public long ucDropped() { return ucDropped.sum(); }
    public long cqOverflows() { return cqOverflows.sum(); }
    public long tenantsReclaimed() { return tenantsReclaimed.sum(); }
    public long objectsReclaimed() { return objectsReclaimed.sum(); }
    public long limitRefusals() { return limitRefusals.sum(); }
    /** Faults in tenant shared memory the router caught (a file truncated under its mapping; {@link ShmFaults}). */
    public long shmFaults() { return shmFaults.sum(); }
    /** Async events queued for a tenant (one per tenant an event reached). */
    public long asyncEvents() { return asyncEvents.sum(); }
    /** Async events not queued: the tenant had {@link AsyncEvents#MAX_QUEUED} it had not taken. */
    public long asyncEventsDropped() { return asyncEventsDropped.sum(); }
}
