// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import java.nio.file.Path;

/** What a router is built from: where shm files go, their name prefix, limits, poller tuning, its transport. */
public record RouterSettings(Path shmDir, String shmPrefix, Limits limits, PollerSettings poller, Backend backend) {

    public RouterSettings(Path shmDir, String shmPrefix, Limits limits, PollerSettings poller) {
        this(shmDir, shmPrefix, limits, poller, Backend.SOFTWARE);
    }

    /**
     * Which transport moves the data: {@code software} (inside this host), or {@code verbs} on the RDMA device
     * named {@code device}, addressing peers with the GID at {@code gidIndex} of its port 1, through
     * {@code library} (libibverbs.so.1).
     */
    public record Backend(String transport, String device, int gidIndex, String library) {
        public static final String SOFTWARE_NAME = "software";
        public static final String VERBS_NAME = "verbs";
        public static final String LIBRARY = "libibverbs.so.1";
        public static final Backend SOFTWARE = new Backend(SOFTWARE_NAME, "", 0, LIBRARY);

        public static Backend verbs(String device, int gidIndex) {
            return new Backend(VERBS_NAME, device, gidIndex, LIBRARY);
        }

        public boolean verbs() {
            return VERBS_NAME.equals(transport);
        }
    }
}
