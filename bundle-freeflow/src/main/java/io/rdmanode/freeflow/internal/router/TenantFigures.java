// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

/** A snapshot of one tenant for /status and metrics. */
public record TenantFigures(int pid, int uid, int label, int pds, int cqs, int qps, int srqs, int mrs, long mrBytes,
                            long requests, long errors) {
}
