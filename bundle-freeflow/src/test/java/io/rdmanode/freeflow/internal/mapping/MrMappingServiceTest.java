// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.mapping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Routers on three loopback addresses (127.0.0.2-4, one port: every router listens on the same port, as on
 * 11232 across hosts) exchange MR mappings through real UDP sockets; a raw socket plays a genuine router.
 */
class MrMappingServiceTest {

    private static final InetAddress A = address("127.0.0.2");
    private static final InetAddress B = address("127.0.0.3");
    private static final InetAddress C = address("127.0.0.4");
    private final List<AutoCloseable> open = new ArrayList<>();
    private int port;

    @BeforeEach
    void freePort() throws Exception {
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(A, 0))) {
            port = probe.getLocalPort();
        }
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private MrMappingService router(InetAddress bind, int attempts, InetAddress... hosts) throws Exception {
        MrMappingService s = MrMappingService.start(new MappingSettings(List.of(hosts), port, bind, 100, attempts));
        open.add(s);
        return s;
    }

    @Test
    void anAnnouncementIsStoredAcknowledgedAndTranslatesRemoteAddresses() throws Exception {
        MrMappingService a = router(A, 3, B);
        MrMappingService b = router(B, 3, A);

        MrMappingService.Announcement sent = a.announce(new MrMappingDatagram(0x1234, 0x7f0000100000L, 0x7e0000500000L));

        assertThat(sent.acknowledged()).containsExactly(B);
        assertThat(sent.complete()).isTrue();
        assertThat(b.table().get(0x1234)).hasValueSatisfying(mr -> assertThat(mr.host()).isEqualTo(A));
        assertThat(b.translate(0x1234, 0x7f0000100040L, null)).hasValue(0x7e0000500040L);
        assertThat(b.translate(0x1234, 0x7f00000fffffL, null)).isEmpty();
        assertThat(b.translate(0x9999, 0x7f0000100040L, null)).isEmpty();      // a key nobody announced
        assertThat(b.figures().received()).isEqualTo(1);
    }

    @Test
    void twoHostsAnnouncingOneKeyAreKeptApartAndALookupNamesThePeer() throws Exception {
        // Two hosts' devices handing out the same rkey (an object index and one byte): the genuine routers keep the
        // last announcement, so WRITEs towards the other host land at the wrong address.
        MrMappingService a = router(A, 3, B);
        MrMappingService b = router(B, 3, A, C);
        MrMappingService c = router(C, 3, B);
        a.announce(new MrMappingDatagram(0x1234, 0x7f0000100000L, 0x7e0000500000L));
        c.announce(new MrMappingDatagram(0x1234, 0x7f0000100000L, 0x7d0000900000L));
        a.announce(new MrMappingDatagram(0x5678, 0x1000, 0x2000));

        assertThat(b.translate(0x1234, 0x7f0000100040L, A)).hasValue(0x7e0000500040L);
        assertThat(b.translate(0x1234, 0x7f0000100040L, C)).hasValue(0x7d0000900040L);
        assertThat(b.translate(0x1234, 0x7f0000100040L, null)).as("no peer address: either could be meant").isEmpty();
        assertThat(b.translate(0x1234, 0x7f0000100040L, address("10.9.9.9"))).isEmpty();
        assertThat(b.translate(0x5678, 0x1040, address("10.9.9.9"))).as("the key's only announcement").hasValue(0x2040);
        assertThat(b.translate(0x5678, 0x1040, C)).as("a listed peer that announced no such key").isEmpty();
        assertThat(b.table().get(A, 0x1234)).hasValueSatisfying(mr -> assertThat(mr.shmPtr()).isEqualTo(0x7e0000500000L));
        MrMappingService.Figures f = b.figures();
        assertThat(f.collisions()).isEqualTo(1);
        assertThat(f.ambiguous()).isEqualTo(2);
        assertThat(f.mappings()).isEqualTo(3);

        b.hosts(new MappingSettings(List.of(C), port, B, 100, 3));
        assertThat(b.translate(0x1234, 0x7f0000100040L, null)).as("A left: C's is the only one").hasValue(0x7d0000900040L);
        assertThat(b.figures().mappings()).isEqualTo(1);
    }

    @Test
    void aSenderNotInTheHostListIsIgnoredCountedAndNotAcknowledged() throws Exception {
        MrMappingService b = router(B, 2, A);
        MrMappingService c = router(C, 2, B);

        MrMappingService.Announcement sent = c.announce(new MrMappingDatagram(7, 0x1000, 0x2000));

        assertThat(sent.acknowledged()).isEmpty();
        assertThat(sent.unacknowledged()).containsExactly(B);
        assertThat(b.table().get(7)).isEmpty();
        // Both attempts; B's receiver thread counts the second after C has given up waiting for its answer.
        await().atMost(Duration.ofSeconds(5)).until(() -> b.figures().unknownSenders() == 2);
        assertThat(c.figures().unacknowledged()).isEqualTo(1);
    }

    @Test
    void aLostDatagramIsSentAgainUntilTheHostAnswers() throws Exception {
        MrMappingService a = router(A, 50, B);
        CompletableFuture<MrMappingService.Announcement> sent = CompletableFuture.supplyAsync(() -> {
            try {
                return a.announce(new MrMappingDatagram(42, 0x1000, 0x2000));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> a.figures().resent() >= 1);  // B's router is not up yet
        MrMappingService b = router(B, 3, A);

        assertThat(sent.get().acknowledged()).containsExactly(B);
        assertThat(b.table().get(42)).isPresent();
    }

    @Test
    void aGenuineRoutersDatagramAndAcknowledgementAreUnderstood() throws Exception {
        MrMappingService b = router(B, 3, A);
        try (DatagramSocket genuine = new DatagramSocket(new InetSocketAddress(A, 0))) {
            // As ffrouter.cpp sends it: the 24-byte struct from an ephemeral port, then a 1400-byte receive.
            byte[] struct = new MrMappingDatagram(0xdeadbeef, 0x7f0000100000L, 0x7f0000200000L).encode().array();
            genuine.send(new DatagramPacket(struct, struct.length, B, port));
            genuine.setSoTimeout(5_000);
            DatagramPacket ack = new DatagramPacket(new byte[1400], 1400);
            genuine.receive(ack);
            String text = new String(ack.getData(), 0, ack.getLength(), StandardCharsets.US_ASCII);
            assertThat(text.substring(0, text.indexOf('\0'))).isEqualTo("ack-3735928559");
            assertThat(ack.getLength()).isEqualTo(1400);
            assertThat(b.table().get(0xdeadbeef)).isPresent();
        }
    }

    @Test
    void ourAnnouncementIsAcknowledgedByAGenuineRouter() throws Exception {
        MrMappingService a = router(A, 3, B);
        try (DatagramSocket genuine = new DatagramSocket(new InetSocketAddress(B, port))) {
            CompletableFuture<MrMappingService.Announcement> sent = CompletableFuture.supplyAsync(() -> {
                try {
                    return a.announce(new MrMappingDatagram(0xdeadbeef, 0x7f0000100000L, 0x7f0000200000L));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // ffrouter.cpp's UDPServer: receive into a 1400-byte buffer, sprintf "ack-%u" over it, send it all back.
            byte[] buf = new byte[1400];
            Arrays.fill(buf, (byte) 0xa5);
            genuine.setSoTimeout(5_000);
            DatagramPacket in = new DatagramPacket(buf, buf.length);
            genuine.receive(in);
            assertThat(in.getLength()).isEqualTo(24);
            MrMappingDatagram m = MrMappingDatagram.decode(ByteBuffer.wrap(buf, 0, 24));
            byte[] text = ("ack-" + Integer.toUnsignedString(m.key()) + "\0").getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(text, 0, buf, 0, text.length);
            genuine.send(new DatagramPacket(buf, 1400, in.getSocketAddress()));

            assertThat(sent.get().acknowledged()).containsExactly(B);
        }
    }

    @Test
    void aHostLeavingTheListTakesItsMappingsAlong() throws Exception {
        MrMappingService a = router(A, 3, B);
        MrMappingService b = router(B, 3, A, C);
        a.announce(new MrMappingDatagram(5, 0x1000, 0x2000));
        assertThat(b.table().get(5)).isPresent();

        b.hosts(new MappingSettings(List.of(C), port, B, 100, 3));

        assertThat(b.table().get(5)).isEmpty();
        assertThat(a.announce(new MrMappingDatagram(6, 0x1000, 0x2000)).acknowledged()).isEmpty();
        assertThat(b.table().get(6)).isEmpty();
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
