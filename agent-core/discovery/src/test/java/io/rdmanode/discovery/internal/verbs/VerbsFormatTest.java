// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.Gid;
import io.rdmanode.discovery.RdmaPort.LinkLayer;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Verbs codes turn into the strings the kernel writes in sysfs-class-infiniband. */
class VerbsFormatTest {

    /** Expected strings are what drivers/infiniband/core/sysfs.c rate_show prints for the same attributes. */
    @ParameterizedTest(name = "width {0} speed {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            1   | 1   | 2.5 Gb/sec (1X SDR)
            2   | 1   | 10 Gb/sec (4X SDR)
            2   | 2   | 20 Gb/sec (4X DDR)
            2   | 4   | 40 Gb/sec (4X QDR)
            1   | 8   | 10 Gb/sec (1X FDR10)
            2   | 16  | 56 Gb/sec (4X FDR)
            2   | 32  | 100 Gb/sec (4X EDR)
            16  | 64  | 100 Gb/sec (2X HDR)
            2   | 64  | 200 Gb/sec (4X HDR)
            2   | 128 | 400 Gb/sec (4X NDR)
            8   | 1   | 30 Gb/sec (12X SDR)
            4   | 32  | 200 Gb/sec (8X EDR)
            """)
    void formatsRateLikeTheKernel(int width, int speed, String expected) {
        assertThat(VerbsFormat.rate(width, speed)).contains(expected);
    }

    @Test
    void leavesRateEmptyForAWidthTheKernelRejectsOrASpeedTheCompatStructCannotHold() {
        assertThat(VerbsFormat.rate(0, 32)).isEmpty();
        assertThat(VerbsFormat.rate(3, 32)).isEmpty();
        assertThat(VerbsFormat.rate(2, 0)).as("XDR: only in active_speed_ex").isEmpty();
    }

    @ParameterizedTest
    @CsvSource({"0, INFINIBAND", "1, INFINIBAND", "2, ETHERNET", "7, UNKNOWN"})
    void mapsLinkLayer(int code, LinkLayer expected) {
        assertThat(VerbsFormat.linkLayer(code)).isEqualTo(expected);
    }

    @Test
    void mapsGidTypesAndFallsBackOnTheLinkLayer() {
        assertThat(VerbsFormat.gidType(Optional.of(0), LinkLayer.INFINIBAND)).isEqualTo(Gid.Type.IB);
        assertThat(VerbsFormat.gidType(Optional.of(1), LinkLayer.ETHERNET)).isEqualTo(Gid.Type.ROCE_V1);
        assertThat(VerbsFormat.gidType(Optional.of(2), LinkLayer.ETHERNET)).isEqualTo(Gid.Type.ROCE_V2);
        assertThat(VerbsFormat.gidType(Optional.of(9), LinkLayer.ETHERNET)).isEqualTo(Gid.Type.UNKNOWN);
        assertThat(VerbsFormat.gidType(Optional.empty(), LinkLayer.INFINIBAND)).isEqualTo(Gid.Type.IB);
        assertThat(VerbsFormat.gidType(Optional.empty(), LinkLayer.ETHERNET)).isEqualTo(Gid.Type.UNKNOWN);
    }
}
