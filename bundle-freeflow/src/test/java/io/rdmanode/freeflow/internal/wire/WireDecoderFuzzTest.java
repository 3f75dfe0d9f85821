// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The Freeflow control request as the router frames and decodes it, fed arbitrary bytes: the 12-byte header,
 * then the body. Contract: a request the framing refuses (unknown function, body over the 1 MiB limit, a fixed
 * body of the wrong size) is refused before any buffer of the attacker's size exists; every other body decodes
 * to a value whose handles are in range and whose lists fit the body, or is refused with a {@link WireException}
 * carrying an errno and a message, for which the client's full-size error answer can be built. Nothing else
 * escapes, and decoding allocates in proportion to the bytes received, never to a count the client claims.
 * The dispatch below follows {@code Dispatcher.execute}'s function-to-decoder table.
 * Corpus: {@code src/test/resources/io/rdmanode/freeflow/internal/wire/WireDecoderFuzzTestInputs/decodes/}.
 */
class WireDecoderFuzzTest {

    private static final int MAX_BODY = 1 << 20;   // Dispatcher.MAX_BODY
    private static final LayoutTable TABLE = LayoutTable.standard();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @FuzzTest
    void decodes(byte[] input) {
        if (input.length < RequestHeader.SIZE) {
            return;                                   // the router is still reading the header
        }
        ByteBuffer header = Wire.allocate(RequestHeader.SIZE).put(0, input, 0, RequestHeader.SIZE);
        RequestHeader h = RequestHeader.decode(header);
        FuncSpec spec = TABLE.func(h.func());
        assertThat(h.bodySize()).isBetween(0L, 0xffffffffL);
        if (spec == null || h.bodySize() > MAX_BODY) {
            return;                                   // refused on the header alone: 4-byte EINVAL, closed
        }
        // The body as received (the header's size is honoured by the reader; here the bytes that came).
        int length = input.length - RequestHeader.SIZE;
        ByteBuffer body = Wire.allocate(length).put(0, input, RequestHeader.SIZE, length);
        try {
            Object decoded = framedDecode(spec, body);
            checkValue(decoded, length);
        } catch (WireException e) {
            assertThat(e.errno()).isPositive();
            assertThat(e.getMessage()).isNotBlank();
            ByteBuffer answer = ErrorResponse.of(spec, e.errno());
            if (spec.response() != null) {
                assertThat(answer.capacity()).isEqualTo(spec.response().size());
            }
        }
        // The same decode again, measured warm (the first one loads classes and links string concatenation).
        long before = THREADS.getCurrentThreadAllocatedBytes();
        try {
            framedDecode(spec, body);
        } catch (WireException expected) {
            // refused as above
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated decoding a %d-byte %s body", length, spec.name())
                .isLessThan(16L * 1024 + 8L * length);
    }

    /** Dispatcher.answer's size rule for fixed bodies, then the function's decoder. */
    private static Object framedDecode(FuncSpec spec, ByteBuffer body) {
        if (spec.requestSize() >= 0 && body.capacity() != spec.requestSize()) {
            throw new WireException(Errno.EINVAL, spec.name() + " body of " + body.capacity() + " bytes, "
                    + spec.requestSize() + " expected");
        }
        return decode(spec.id(), body);
    }

    private static Object decode(int func, ByteBuffer b) {
        return switch (func) {
            case Func.QUERY_PORT -> QueryPortRequest.decode(b);
            case Func.DEALLOC_PD -> HandleRequest.decode(b, "PD");
            case Func.DESTROY_CQ -> HandleRequest.decode(b, "CQ");
            case Func.DESTROY_QP -> HandleRequest.decode(b, "QP");
            case Func.DESTROY_SRQ -> HandleRequest.decode(b, "SRQ");
            case Func.DEREG_MR -> HandleRequest.decode(b, "MR");
            case Func.CREATE_CQ -> CreateCqRequest.decode(b);
            case Func.REQ_NOTIFY_CQ -> ReqNotifyCqRequest.decode(b);
            case Func.CREATE_QP -> CreateQpRequest.decode(b);
            case Func.MODIFY_QP -> ModifyQpRequest.decode(b);
            case Func.QUERY_QP -> QueryQpRequest.decode(b);
            case Func.REG_MR -> RegMrRequest.decode(b);
            case Func.REG_MR_MAPPING -> RegMrMappingRequest.decode(b);
            case Func.POST_SEND -> PostRequest.decodeSend(b, b.capacity());
            case Func.POST_RECV, Func.POST_SRQ_RECV -> PostRequest.decodeRecv(b, b.capacity());
            case Func.CREATE_SRQ -> CreateSrqRequest.decode(b);
            case Func.MODIFY_SRQ -> ModifySrqRequest.decode(b);
            case Func.POLL_CQ -> PollCqRequest.decode(b);
            case Func.DESTROY_COMP_CHANNEL, Func.GET_CQ_EVENT -> FdRequest.decode(b);
            case Func.ACK_CQ_EVENT -> AckCqEventRequest.decode(b);
            default -> null;                          // no body to decode, or answered EOPNOTSUPP
        };
    }

    private static void checkValue(Object v, int length) {
        if (v instanceof PostRequest p) {
            assertHandle(p.handle());
            List<?> wrs = p.sends().isEmpty() ? p.recvs() : p.sends();
            assertThat((long) wrs.size() * RecvWr.SIZE).isLessThanOrEqualTo(length);
            long sges = p.sends().stream().mapToLong(w -> w.sges().length).sum()
                    + p.recvs().stream().mapToLong(w -> w.sges().length).sum();
            assertThat(sges * Sge.SIZE).isLessThanOrEqualTo(length);
        } else if (v instanceof HandleRequest r) {
            assertHandle(r.handle());
        } else if (v instanceof PollCqRequest r) {
            assertHandle(r.cqHandle());
            assertThat(r.ne()).isBetween(0, PollCqRequest.MAX_NE);
        } else if (v instanceof FdRequest r) {
            assertThat(r.fd()).isBetween(0, Wire.MAP_SIZE - 1);
        } else if (v instanceof CreateCqRequest r) {
            assertThat(r.cqe()).isPositive();
        } else if (v instanceof RegMrRequest r) {
            assertHandle(r.pdHandle());
            assertThat(r.memSize()).isNotZero();
        }
    }

    private static void assertHandle(int h) {
        assertThat(h).isBetween(1, Wire.MAP_SIZE - 1);
    }
}
