// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.freeflow.internal.wire.Func;
import io.rdmanode.freeflow.testclient.FfClient;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;

/**
 * With the software transport there is no kernel rdma_cm to replay on: every CM_* keeps answering EOPNOTSUPP
 * with the answer's full size, and a CM_GET_EVENT (whose body the control loop peeks, to park it with the verbs
 * transport) leaves its connection framed for the next request.
 */
class CmSoftwareTransportTest {

    private static ByteBuffer read(SocketChannel ch, int size) throws IOException {
        ByteBuffer r = FfClient.buf(size);
        while (r.hasRemaining()) {
            if (ch.read(r) < 0) {
                throw new IOException("router closed after " + r.position() + " of " + size + " bytes");
            }
        }
        return r.clear();
    }

    @Test
    void cm_calls_answer_eopnotsupp_in_their_full_size() throws Exception {
        try (RouterFixture fx = new RouterFixture()) {
            FfClient c = fx.client();
            assertThat(c.call(Func.CM_CREATE_ID, FfClient.buf(40), 8).getInt(0)).isEqualTo(95);
            assertThat(c.call(Func.CM_BIND, FfClient.buf(152), 4).getInt(0)).isEqualTo(95);
            assertThat(c.call(Func.CM_QUERY_ROUTE, FfClient.buf(32), 208).getInt(0)).isEqualTo(95);
            assertThat(c.call(Func.CM_DISCONNECT, FfClient.buf(16), 4).getInt(0)).isEqualTo(95);
        }
    }

    @Test
    void a_get_event_on_a_kept_connection_is_answered_and_the_next_request_still_parses() throws Exception {
        try (RouterFixture fx = new RouterFixture(); SocketChannel ch = fx.client().open()) {
            for (int i = 0; i < 2; i++) {
                ByteBuffer req = FfClient.buf(12 + 24).putInt(0, 1).putInt(4, Func.CM_GET_EVENT).putInt(8, 24)
                        .putInt(12, 3);
                while (req.hasRemaining()) {
                    ch.write(req);
                }
                assertThat(read(ch, 336).getInt(0)).isEqualTo(95);
            }
            ByteBuffer pd = FfClient.buf(12).putInt(0, 1).putInt(4, 5).putInt(8, 0);
            while (pd.hasRemaining()) {
                ch.write(pd);
            }
            assertThat(read(ch, 4).getInt(0)).as("ALLOC_PD on the same connection").isPositive();
        }
    }
}
