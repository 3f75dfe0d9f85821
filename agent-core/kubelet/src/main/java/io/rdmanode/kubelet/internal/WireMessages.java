// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.KnownLength;
import io.grpc.MethodDescriptor.Marshaller;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.function.IntSupplier;

/**
 * The device-plugin service seen as bytes, so that the host, not grpc-java, decides what a request that is too
 * large or not protobuf gets. A parse failure inside grpc-java's own protobuf marshaller reaches the client as
 * {@code UNKNOWN} ("Application error processing RPC"); here the request's bytes are taken off the wire first
 * (never more than the resource's limit) and {@link CallGate} parses them, answering {@code RESOURCE_EXHAUSTED}
 * or {@code INVALID_ARGUMENT}.
 */
final class WireMessages {

    private WireMessages() {
    }

    /** A request as it came off the wire: its bytes, or only its size when that is over the limit. */
    record Request(byte[] bytes, long size, int limit) {

        boolean oversize() {
            return bytes == null;
        }
    }

    /** Reads at most {@code limit} bytes of a request; a longer one is kept as its size only. */
    static Marshaller<Request> requests(IntSupplier limit) {
        return new Marshaller<>() {
            @Override
            public InputStream stream(Request request) {
                return new ByteArrayInputStream(request.bytes());
            }

            @Override
            public Request parse(InputStream in) {
                int max = limit.getAsInt();
                try (in) {
                    // grpc-java hands the whole deframed message (KnownLength): its size is known before reading.
                    if (in instanceof KnownLength && in.available() > max) {
                        return new Request(null, in.available(), max);
                    }
                    byte[] bytes = in.readNBytes(max + 1);
                    return bytes.length > max ? new Request(null, -1, max) : new Request(bytes, bytes.length, max);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read request: " + e.getMessage(), e);
                }
            }
        };
    }

    /** Responses pass through as the stream the service's own marshaller made (no copy). */
    static Marshaller<InputStream> responses() {
        return new Marshaller<>() {
            @Override
            public InputStream stream(InputStream response) {
                return response;
            }

            @Override
            public InputStream parse(InputStream response) {
                return response;
            }
        };
    }
}
