// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.testing;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.rdmanode.kubelet.internal.v1beta1.AllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.ContainerAllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.DevicePluginGrpc;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/** Device-plugin calls as bytes on the wire: requests of an exact size, or not protobuf at all. */
public final class RawCalls {

    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    /** Allocate with bytes for request and answer: sizes exact to the byte, and requests that are not protobuf. */
    public static final MethodDescriptor<byte[], byte[]> ALLOCATE = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(DevicePluginGrpc.getAllocateMethod().getFullMethodName())
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();

    /**
     * Allocate as a client-streaming call: a client sends a unary call's headers with its one message, so a call
     * that stalls after its headers (what a hostile client does by hand) is made through this type instead.
     */
    public static final MethodDescriptor<byte[], byte[]> ALLOCATE_STALLABLE = ALLOCATE.toBuilder()
            .setType(MethodDescriptor.MethodType.CLIENT_STREAMING).build();

    private RawCalls() {
    }

    /** Sends {@code request} as an Allocate and returns the answer's bytes; a call not answered in 30 s fails. */
    public static byte[] allocate(Channel channel, byte[] request) {
        return ClientCalls.blockingUnaryCall(channel, ALLOCATE,
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), request);
    }

    /** The status code's name the call ends with. */
    public static String code(Runnable call) {
        try {
            call.run();
            return "OK";
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode().name();
        }
    }

    /**
     * A valid Allocate of one container asking for {@code id}, padded to exactly {@code size} bytes with an
     * unknown length-delimited field (number 15), which protobuf parsers keep and ignore.
     */
    public static byte[] allocateOfSize(String id, int size) {
        byte[] valid = AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest.newBuilder()
                .addDevicesIds(id)).build().toByteArray();
        int filler = size - valid.length - 1;                   // tag byte, then varint length, then the bytes
        int lengthBytes = 1;
        while (filler - lengthBytes >= (1 << (7 * lengthBytes))) {
            lengthBytes++;
        }
        int padding = filler - lengthBytes;
        ByteArrayOutputStream out = new ByteArrayOutputStream(size);
        out.writeBytes(valid);
        out.write((15 << 3) | 2);
        for (int v = padding; ; v >>>= 7) {
            if (v < 0x80) {
                out.write(v);
                break;
            }
            out.write((v & 0x7f) | 0x80);
        }
        out.writeBytes(new byte[padding]);
        byte[] bytes = out.toByteArray();
        if (bytes.length != size) {
            throw new IllegalArgumentException("cannot pad an Allocate of " + valid.length + " bytes to " + size);
        }
        return bytes;
    }
}
