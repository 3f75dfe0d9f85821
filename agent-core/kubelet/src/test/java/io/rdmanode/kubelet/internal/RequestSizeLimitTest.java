// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RequestSizeLimitTest {

    @Test
    void smallPoolsGetTheFloor() {
        RequestSizeLimit limit = new RequestSizeLimit(1 << 20);

        assertThat(limit.update(DevicePluginBoundsTest.devices(1024, 12))).isFalse();

        assertThat(limit.bytes()).isEqualTo(RequestSizeLimit.FLOOR);
    }

    @Test
    void aLargePoolGetsTwoContainersOfEveryIdTwiceWithFraming() {
        RequestSizeLimit limit = new RequestSizeLimit(1 << 20);

        limit.update(DevicePluginBoundsTest.devices(3000, 40));

        assertThat(limit.bytes()).isEqualTo(2 * (2 * 3000 * (40 + 2) + 32));
    }

    @Test
    void theLimitGrowsWithThePoolAndDoesNotShrinkWhileServing() {
        RequestSizeLimit limit = new RequestSizeLimit(1 << 20);
        limit.update(DevicePluginBoundsTest.devices(3000, 40));
        int grown = limit.bytes();

        limit.update(DevicePluginBoundsTest.devices(2, 40));

        assertThat(limit.bytes()).isEqualTo(grown);
    }

    @Test
    void aPoolPastTheCeilingIsCappedAndSaysSo() {
        RequestSizeLimit limit = new RequestSizeLimit(1 << 20);

        assertThat(limit.update(DevicePluginBoundsTest.devices(9000, 63))).isTrue();

        assertThat(limit.bytes()).isEqualTo(1 << 20);
        assertThat(new RequestSizeLimit(1 << 20).update(List.of())).isFalse();
    }
}
