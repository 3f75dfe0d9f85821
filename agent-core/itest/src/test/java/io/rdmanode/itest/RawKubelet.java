// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import io.grpc.CallOptions;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A kubelet double for tests inside the framework, speaking the device plugin API v1beta1 from raw wire
 * bytes (protobuf-java's {@link UnknownFieldSet}), so it depends on no generated class of the agent: a
 * Registration server on {@code kubelet.sock} that dials each plugin back, asks for its options and keeps a
 * ListAndWatch stream open, as kubelet does. Field numbers from protocol-facts §1.3.
 */
final class RawKubelet implements AutoCloseable {

    record Registration(String resource, String endpoint, long nanos) {
    }

    /** One device of a ListAndWatch update. */
    record Device(String id, String health) {
    }

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

    private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type).setFullMethodName(name)
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }

    static final MethodDescriptor<byte[], byte[]> REGISTER = method("v1beta1.Registration/Register",
            MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<byte[], byte[]> OPTIONS = method("v1beta1.DevicePlugin/GetDevicePluginOptions",
            MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<byte[], byte[]> LIST_AND_WATCH = method("v1beta1.DevicePlugin/ListAndWatch",
            MethodDescriptor.MethodType.SERVER_STREAMING);
    static final MethodDescriptor<byte[], byte[]> ALLOCATE = method("v1beta1.DevicePlugin/Allocate",
            MethodDescriptor.MethodType.UNARY);

    private final Path dir;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    private final List<Registration> registrations = new CopyOnWriteArrayList<>();
    private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
    private final Map<String, List<Device>> devices = new ConcurrentHashMap<>();
    private Server server;
    private long startedNanos;

    RawKubelet(Path dir) {
        this.dir = dir;
    }

    synchronized RawKubelet start() throws IOException {
        ServerServiceDefinition registration = ServerServiceDefinition.builder("v1beta1.Registration")
                .addMethod(REGISTER, ServerCalls.asyncUnaryCall(this::register)).build();
        server = NettyServerBuilder.forAddress(new DomainSocketAddress(dir.resolve("kubelet.sock").toString()))
                .channelType(EpollServerDomainSocketChannel.class).bossEventLoopGroup(group)
                .workerEventLoopGroup(group).withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .addService(registration).build().start();
        startedNanos = System.nanoTime();
        return this;
    }

    /** What kubelet does when it restarts: stop, remove every socket, serve a new kubelet.sock. */
    synchronized void restart() throws IOException {
        stop();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".sock")).toList()) {
                Files.deleteIfExists(f);
            }
        }
        start();
    }

    synchronized long startedNanos() {
        return startedNanos;
    }

    private void register(byte[] request, StreamObserver<byte[]> out) {
        long now = System.nanoTime();
        try {
            UnknownFieldSet fields = UnknownFieldSet.parseFrom(request);
            String version = string(fields, 1);
            String endpoint = string(fields, 2);
            String resource = string(fields, 3);
            if (!version.equals("v1beta1")) {
                throw new IllegalArgumentException("unsupported version " + version);
            }
            ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(
                    dir.resolve(endpoint).toString())).channelType(EpollDomainSocketChannel.class)
                    .eventLoopGroup(group).withOption(ChannelOption.SO_KEEPALIVE, null)
                    .overrideAuthority("localhost").usePlaintext().build();
            ClientCalls.blockingUnaryCall(channel, OPTIONS, CallOptions.DEFAULT.withDeadlineAfter(5,
                    TimeUnit.SECONDS), new byte[0]);
            ManagedChannel old = channels.put(resource, channel);
            if (old != null) {
                old.shutdownNow();
            }
            devices.remove(resource);
            registrations.add(new Registration(resource, endpoint, now));
            out.onNext(new byte[0]);
            out.onCompleted();
            Context.ROOT.run(() -> watch(resource, channel));
        } catch (RuntimeException | InvalidProtocolBufferException e) {
            out.onError(io.grpc.Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
        }
    }

    private void watch(String resource, ManagedChannel channel) {
        ClientCalls.asyncServerStreamingCall(channel.newCall(LIST_AND_WATCH, CallOptions.DEFAULT), new byte[0],
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                        try {
                            devices.put(resource, UnknownFieldSet.parseFrom(value).getField(1).getLengthDelimitedList()
                                    .stream().map(RawKubelet::device).toList());
                        } catch (InvalidProtocolBufferException e) {
                            throw new IllegalStateException(e);
                        }
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
    }

    private static Device device(ByteString bytes) {
        try {
            UnknownFieldSet d = UnknownFieldSet.parseFrom(bytes);
            return new Device(string(d, 1), string(d, 2));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String string(UnknownFieldSet fields, int number) {
        List<ByteString> values = fields.getField(number).getLengthDelimitedList();
        return values.isEmpty() ? "" : values.get(0).toStringUtf8();
    }

    long registrations(String resource) {
        return registrations.stream().filter(r -> r.resource().equals(resource)).count();
    }

    List<Registration> registrations() {
        return List.copyOf(registrations);
    }

    /** The latest ListAndWatch list of {@code resource} on its current connection; empty before the first. */
    List<Device> devices(String resource) {
        return devices.getOrDefault(resource, List.of());
    }

    /** Allocate for one container; returns every host path of the answer's DeviceSpecs. */
    List<String> allocate(String resource, String... ids) throws InvalidProtocolBufferException {
        return allocate(resource, 2, ids);
    }

    /** Allocate for one container; returns DeviceSpec field {@code field} (1 container path, 2 host path). */
    List<String> allocate(String resource, int field, String... ids) throws InvalidProtocolBufferException {
        UnknownFieldSet.Field.Builder idField = UnknownFieldSet.Field.newBuilder();
        for (String id : ids) {
            idField.addLengthDelimited(ByteString.copyFromUtf8(id));
        }
        UnknownFieldSet container = UnknownFieldSet.newBuilder().addField(1, idField.build()).build();
        byte[] request = UnknownFieldSet.newBuilder().addField(1, UnknownFieldSet.Field.newBuilder()
                .addLengthDelimited(container.toByteString()).build()).build().toByteArray();
        byte[] response = ClientCalls.blockingUnaryCall(channels.get(resource), ALLOCATE,
                CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), request);
        ByteString first = UnknownFieldSet.parseFrom(response).getField(1).getLengthDelimitedList().get(0);
        return UnknownFieldSet.parseFrom(first).getField(3).getLengthDelimitedList().stream()
                .map(spec -> {
                    try {
                        return string(UnknownFieldSet.parseFrom(spec), field);
                    } catch (InvalidProtocolBufferException e) {
                        throw new IllegalStateException(e);
                    }
                }).toList();
    }

    private synchronized void stop() {
        if (server != null) {
            server.shutdownNow();
            try {
                server.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            server = null;
        }
        channels.values().forEach(ManagedChannel::shutdownNow);
        channels.clear();
        devices.clear();
    }

    @Override
    public void close() {
        stop();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2000);
    }
}
