// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two agents during a handover, each with its view of one checkpoint file (kubelet may call either instance of the
 * driver): under the lock each sees what the other wrote, and neither's write drops the other's claims.
 */
class PreparedClaimsTest {

    private static PreparedClaims.Prepared claim(String uid, String pci) {
        return new PreparedClaims.Prepared("ns", "c-" + uid, uid, List.of(new PreparedDevice(List.of("nic"), "pool",
                "pci-" + pci.replace(':', '-').replace('.', '-'), List.of("rdma.rdmanode.io/claim=" + uid), pci,
                "mlx5_2")));
    }

    @Test
    void twoInstancesOnOneCheckpointSeeEachOthersClaims(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("dra-prepared.json");
        PreparedClaims predecessor = new PreparedClaims(file);
        PreparedClaims successor = new PreparedClaims(file);

        try (PreparedClaims.Lock l = predecessor.lock()) {
            predecessor.put(claim("uid-1", "0000:3b:00.2"));
        }
        try (PreparedClaims.Lock l = successor.lock()) {
            assertThat(successor.get("uid-1")).isPresent();
            assertThat(successor.holderOf("0000:3b:00.2", "uid-9")).isPresent();   // not given to another claim
            successor.put(claim("uid-2", "0000:3b:00.3"));
        }
        try (PreparedClaims.Lock l = predecessor.lock()) {
            assertThat(predecessor.all()).extracting(PreparedClaims.Prepared::uid).containsExactly("uid-1", "uid-2");
            predecessor.remove("uid-1");
        }
        try (PreparedClaims.Lock l = successor.lock()) {
            assertThat(successor.all()).extracting(PreparedClaims.Prepared::uid).containsExactly("uid-2");
        }
        assertThat(new PreparedClaims(file).all()).extracting(PreparedClaims.Prepared::uid).containsExactly("uid-2");
    }

    /** The CNI finds a pod's VFs by the pod's uid (the claim's reservedFor), also after a restart. */
    @Test
    void theDevicesOfAPodAreFoundByItsUidAfterARestartToo(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("dra-prepared.json");
        PreparedClaims claims = new PreparedClaims(file);
        PreparedClaims.Prepared one = claim("uid-1", "0000:3b:00.2");
        PreparedClaims.Prepared two = claim("uid-2", "0000:3b:00.3");
        try (PreparedClaims.Lock l = claims.lock()) {
            claims.put(new PreparedClaims.Prepared(one.namespace(), one.name(), one.uid(), one.devices(),
                    List.of("pod-a")));
            claims.put(new PreparedClaims.Prepared(two.namespace(), two.name(), two.uid(), two.devices(),
                    List.of("pod-a", "pod-b")));
        }

        PreparedClaims restarted = new PreparedClaims(file);
        assertThat(restarted.devicesOfPod("pod-a")).containsExactly("0000:3b:00.2", "0000:3b:00.3");
        assertThat(restarted.devicesOfPod("pod-b")).containsExactly("0000:3b:00.3");
        assertThat(restarted.devicesOfPod("pod-c")).isEmpty();
    }
}
