// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.wire.Errno;

/**
 * What a per-tenant cap bounds, with the errno a refusal carries: the one a kernel verbs provider gives for the
 * same exhaustion (ENOMEM for queues, regions and their memory, as ib_uverbs does past a device or memlock limit;
 * EMFILE for a completion channel, which is a descriptor; EAGAIN for a connection, which the client may retry once
 * one of its calls finished). The genuine client has no error field in CREATE_QP, CREATE_CQ, REG_MR or
 * CREATE_COMP_CHANNEL answers: there a refusal is the zeroed answer (handle 0, no shm name, channel fd -1), and the
 * errno shows in the log and in {@code rdma_agent_freeflow_tenant_refusals}.
 */
public enum Resource {
    CONNECTIONS("connections", Errno.EAGAIN),
    CHANNELS("channels", Errno.EMFILE),
    PDS("pds", Errno.ENOMEM),
    CQS("cqs", Errno.ENOMEM),
    QPS("qps", Errno.ENOMEM),
    SRQS("srqs", Errno.ENOMEM),
    MRS("mrs", Errno.ENOMEM),
    SHM("shm", Errno.ENOMEM);

    private final String label;
    private final int errno;

    Resource(String label, int errno) {
        this.label = label;
        this.errno = errno;
    }

    /** The metric label and /status key. */
    public String label() {
        return label;
    }

    public int errno() {
        return errno;
    }
}
