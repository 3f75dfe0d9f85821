// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.rdmacm.CmCounts;
import java.util.Map;

/**
 * A snapshot of one tenant for /status and metrics; {@code refusals} counts the requests each per-tenant cap
 * turned down (every {@link Resource}, zeros included); {@code cm} its rdma_cm (zeros without it).
 */
public record TenantFigures(int pid, int uid, int label, int pds, int cqs, int qps, int srqs, int mrs, long mrBytes,
                            long requests, long errors, int channels, long shmBytes, Map<Resource, Long> refusals,
                            CmCounts.Client cm) {
}
