// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ContainerAllocationTest {

    @ParameterizedTest
    @ValueSource(strings = {"r", "rw", "rwm", "mwr", "rr"})
    void deviceNodesTakeCgroupRights(String permissions) {
        assertThat(new DeviceNode("/dev/infiniband/uverbs0", "/dev/infiniband/uverbs0", permissions).permissions())
                .isEqualTo(permissions);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "rx", "RW", " rw", "rw\n"})
    void deviceNodesRefuseOtherRights(String permissions) {
        assertThatThrownBy(() -> new DeviceNode("/dev/infiniband/uverbs0", "/dev/infiniband/uverbs0", permissions))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be of r, w, m");
    }
}
