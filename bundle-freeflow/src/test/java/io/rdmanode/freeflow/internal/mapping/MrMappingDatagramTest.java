// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.mapping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The inter-router datagrams byte for byte: what we send against the genuine router's C struct (the golden bytes
 * of {@code fixtures/wire}, made by the C client through the same struct), and what a genuine router answers.
 */
class MrMappingDatagramTest {

    private static byte[] fixture(String name) throws Exception {
        return HexFormat.of().parseHex(Files.readString(Path.of("src/test/resources/fixtures/wire", name + ".hex")).strip());
    }

    @Test
    void anAnnouncementIsTheGenuineRoutersStructBytes() throws Exception {
        MrMappingDatagram m = new MrMappingDatagram(0xdeadbeef, 0x7f0000100000L, 0x7f0000200000L);

        assertThat(m.encode().array()).isEqualTo(fixture("reg_mr_mapping_req"));
        assertThat(MrMappingDatagram.decode(ByteBuffer.wrap(fixture("reg_mr_mapping_req")))).isEqualTo(m);
    }

    @Test
    void aGenuineAcknowledgementIsReadUpToItsNul() throws Exception {
        byte[] genuine = fixture("mr_mapping_ack_genuine");

        assertThat(genuine).hasSize(1400);
        assertThat(MrMappingDatagram.ackedKey(ByteBuffer.wrap(genuine))).hasValue(0xdeadbeef);
    }

    @Test
    void ourAcknowledgementIsTheGenuineTextNulTerminatedIn1400Bytes() {
        ByteBuffer ack = MrMappingDatagram.ack(0xdeadbeef);

        assertThat(ack.remaining()).isEqualTo(1400);
        byte[] text = "ack-3735928559\0".getBytes(StandardCharsets.US_ASCII);
        byte[] start = new byte[text.length];
        ack.duplicate().get(start);
        assertThat(start).isEqualTo(text);
        assertThat(MrMappingDatagram.ackedKey(ack)).hasValue(0xdeadbeef);
    }

    @Test
    void shortDatagramsAndOtherTextAreRefused() {
        assertThatThrownBy(() -> MrMappingDatagram.decode(ByteBuffer.allocate(23)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("24 bytes, got 23");
        assertThat(MrMappingDatagram.ackedKey(ByteBuffer.wrap("nak-1\0".getBytes(StandardCharsets.US_ASCII)))).isEmpty();
        assertThat(MrMappingDatagram.ackedKey(ByteBuffer.wrap("ack-\0".getBytes(StandardCharsets.US_ASCII)))).isEmpty();
        assertThat(MrMappingDatagram.ackedKey(ByteBuffer.wrap("ack-99999999999".getBytes(StandardCharsets.US_ASCII))))
                .isEmpty();
        assertThat(MrMappingDatagram.ackedKey(ByteBuffer.wrap("ack-12x".getBytes(StandardCharsets.US_ASCII)))).isEmpty();
    }
}
