// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import java.nio.file.Path;

/** What a router is built from: where shm files go, their name prefix, limits, poller tuning. */
public record RouterSettings(Path shmDir, String shmPrefix, Limits limits, PollerSettings poller) {
}
