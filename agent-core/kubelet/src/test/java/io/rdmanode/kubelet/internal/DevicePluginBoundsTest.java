// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.ServedResource;
import io.rdmanode.kubelet.internal.v1beta1.AllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.AllocateResponse;
import io.rdmanode.kubelet.internal.v1beta1.ContainerAllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.DevicePluginGrpc;
import io.rdmanode.kubelet.testing.RawCalls;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21: what a client that sends too much, too many or garbage gets from a plugin socket, through the real
 * Unix socket as kubelet calls it: the status it is answered with, and that the resource serves on afterwards.
 */
class DevicePluginBoundsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String RESOURCE = "rdma/test_a";

    @TempDir
    Path dir;
    private FakeKubelet kubelet;
    private KubeletDevicePluginHost host;
    private UdsTransport client;
    private ManagedChannel channel;
    private final ExecutorService callers = Executors.newCachedThreadPool();

    private ServedResource serve(CallLimits limits, BlockingPlugin plugin) throws IOException {
        kubelet = new FakeKubelet(dir).start();
        host = new KubeletDevicePluginHost(new HostSettings(dir, dir.resolve("kubelet.sock"), 2000, 2000, 60_000, 1),
                limits);
        ServedResource served = host.serve(plugin);
        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);
        client = new UdsTransport(1, "bounds-test-client", callers);
        channel = client.dial(served.socket());
        return served;
    }

    @AfterEach
    void stop() {
        if (channel != null) {
            channel.shutdownNow();
            client.close();
        }
        if (host != null) {
            host.close();
            kubelet.close();
        }
        callers.shutdownNow();
    }

    @Test
    void aRequestOfTheLimitIsServedAndOneByteMoreIsResourceExhausted() throws IOException {
        BlockingPlugin plugin = new BlockingPlugin(devices(3000, 40));
        serve(CallLimits.DEFAULTS, plugin);
        int limit = limit();
        assertThat(limit).isEqualTo(RequestSizeLimit.derived(3000, 40)).isGreaterThan(RequestSizeLimit.FLOOR);

        byte[] atLimit = allocateOfSize(plugin.devices().get(0).id(), limit);
        byte[] over = allocateOfSize(plugin.devices().get(0).id(), limit + 1);

        AllocateResponse ok = AllocateResponse.parseFrom(ClientCalls.blockingUnaryCall(channel, RawCalls.ALLOCATE,
                CallOptions.DEFAULT, atLimit));
        assertThat(ok.getContainerResponsesCount()).isEqualTo(1);
        assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, RawCalls.ALLOCATE, CallOptions.DEFAULT, over))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                    assertThat(e.getStatus().getDescription()).isEqualTo("Allocate request of " + (limit + 1)
                            + " bytes exceeds the limit of " + limit + " bytes for resource " + RESOURCE);
                });
        assertThat(allocate(plugin.devices().get(1).id()).getContainerResponsesCount()).isEqualTo(1);
    }

    @Test
    void requestsOverTheTransportCeilingAreResourceExhaustedAndLoggedOnce() throws Exception {
        BlockingPlugin plugin = new BlockingPlugin(devices(4, 10));
        ServedResource served = serve(CallLimits.DEFAULTS, plugin);
        byte[] huge = allocateOfSize("test_a-0000", CallLimits.DEFAULTS.messageCeiling() + 1);

        String log = stderrOf(() -> {
            // Each on a connection of its own: grpc-java answers a message over its limit with trailers only, no
            // RST_STREAM, so a client whose message's tail waits for flow-control window keeps that stream, and
            // after maxConcurrentCallsPerConnection of them its connection stalls. Only that client's connection.
            for (int i = 0; i < 20; i++) {
                ManagedChannel own = client.dial(served.socket());
                try {
                    assertThat(code(() -> ClientCalls.blockingUnaryCall(own, RawCalls.ALLOCATE,
                            CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), huge))).as("call %d", i)
                            .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                } finally {
                    own.shutdownNow();
                }
            }
            return null;
        });

        assertThat(allocate("test_a-0000").getContainerResponsesCount()).isEqualTo(1);
        assertThat(log.lines().filter(l -> l.contains("refused by the gRPC transport"))).hasSize(1);
        assertThat(log).doesNotContain("\tat io.grpc");
    }

    @Test
    void garbageIsInvalidArgument() throws IOException {
        serve(CallLimits.DEFAULTS, new BlockingPlugin(devices(4, 10)));
        byte[] garbage = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0a, 0x7f, 0x01};

        assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, RawCalls.ALLOCATE, CallOptions.DEFAULT, garbage))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).startsWith(
                            "Allocate request for resource " + RESOURCE + " is not a valid protobuf message: ");
                });
        assertThat(allocate("test_a-0000").getContainerResponsesCount()).isEqualTo(1);
    }

    @Test
    void callsPastTheBoundAreResourceExhaustedAtOnceAndTheOthersAnswered() throws Exception {
        BlockingPlugin plugin = new BlockingPlugin(devices(4, 10));
        plugin.block();
        serve(new CallLimits(30_000, 4, 16, 4, 1 << 20), plugin);

        List<Future<Status.Code>> calls = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            calls.add(callers.submit(() -> code(() -> allocate("test_a-0000"))));
        }
        Awaitility.await().atMost(WAIT).until(() -> plugin.inside.get() == 4
                && calls.stream().filter(Future::isDone).count() == 3);
        plugin.release();

        List<Status.Code> codes = new ArrayList<>();
        for (Future<Status.Code> c : calls) {
            codes.add(c.get(10, TimeUnit.SECONDS));
        }
        assertThat(codes).filteredOn(c -> c == Status.Code.OK).hasSize(4);
        assertThat(codes).filteredOn(c -> c == Status.Code.RESOURCE_EXHAUSTED).hasSize(3);
    }

    /**
     * Calls opened whose request never comes (a client that stalls after the headers) hold no slot: kubelet's
     * Allocate is served beside them, and each of them is answered DEADLINE_EXCEEDED at the call timeout. They took
     * their slots at the start and held them for the whole timeout: 16 of them refused every resource's calls.
     */
    @Test
    void callsWhoseRequestNeverArrivesHoldNoSlotAndEndAtTheTimeout() throws Exception {
        ServedResource served = serve(new CallLimits(1_500, 2, 2, 4, 1 << 20), new BlockingPlugin(devices(4, 10)));

        List<java.util.concurrent.CompletableFuture<Status>> endings = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            io.grpc.ClientCall<byte[], byte[]> call = channel.newCall(RawCalls.ALLOCATE_STALLABLE, CallOptions.DEFAULT);
            java.util.concurrent.CompletableFuture<Status> ended = new java.util.concurrent.CompletableFuture<>();
            call.start(new io.grpc.ClientCall.Listener<>() {
                @Override
                public void onClose(Status status, io.grpc.Metadata trailers) {
                    ended.complete(status);
                }
            }, new io.grpc.Metadata());
            call.request(1);                          // headers sent; no message, no half-close
            endings.add(ended);
        }

        // kubelet, on a connection of its own (the stalled calls fill the first one's HTTP/2 streams)
        ManagedChannel kubeletChannel = client.dial(served.socket());
        try {
            AllocateRequest request = AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest
                    .newBuilder().addDevicesIds("test_a-0000")).build();
            for (int i = 0; i < 4; i++) {
                assertThat(DevicePluginGrpc.newBlockingStub(kubeletChannel).withDeadlineAfter(10, TimeUnit.SECONDS)
                        .allocate(request).getContainerResponsesCount()).as("Allocate " + i).isEqualTo(1);
            }
            for (java.util.concurrent.CompletableFuture<Status> ended : endings) {
                Status status = ended.get(10, TimeUnit.SECONDS);
                assertThat(status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
                assertThat(status.getDescription()).contains("the request did not arrive within 1500 ms");
            }
        } finally {
            kubeletChannel.shutdownNow();
        }
    }

    @Test
    void aStuckHandlerIsAnsweredDeadlineExceededInterruptedAndItsSlotFreed() throws Exception {
        BlockingPlugin plugin = new BlockingPlugin(devices(4, 10));
        plugin.block();
        serve(new CallLimits(300, 1, 16, 4, 1 << 20), plugin);

        assertThat(code(() -> allocate("test_a-0000"))).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        Awaitility.await().atMost(WAIT).until(() -> plugin.interrupted.get() == 1);
        plugin.release();

        assertThat(code(() -> allocate("test_a-0000"))).isEqualTo(Status.Code.OK);
    }

    @Test
    void sixtyFourConcurrentAllocatesAtTheLimitLeaveTheResourceServing() throws Exception {
        BlockingPlugin plugin = new BlockingPlugin(devices(3000, 40));
        serve(CallLimits.DEFAULTS, plugin);
        byte[] atLimit = allocateOfSize(plugin.devices().get(0).id(), limit());

        List<Future<Status.Code>> calls = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        for (int i = 0; i < 64; i++) {
            calls.add(callers.submit(() -> {
                start.await();
                return code(() -> ClientCalls.blockingUnaryCall(channel, RawCalls.ALLOCATE, CallOptions.DEFAULT, atLimit));
            }));
        }
        start.countDown();
        List<Status.Code> codes = new ArrayList<>();
        for (Future<Status.Code> c : calls) {
            codes.add(c.get(30, TimeUnit.SECONDS));
        }

        // Slots are taken once a request has arrived whole; how many overlap then depends on how fast the 1 MiB
        // requests come in over the one connection, so RESOURCE_EXHAUSTED may or may not occur.
        assertThat(codes).isSubsetOf(Status.Code.OK, Status.Code.RESOURCE_EXHAUSTED).contains(Status.Code.OK);
        assertThat(allocate(plugin.devices().get(1).id()).getContainerResponsesCount()).isEqualTo(1);
    }

    @Test
    void tenThousandAllocatesOfAnUnknownIdWriteAFewLines() throws Exception {
        serve(CallLimits.DEFAULTS, new BlockingPlugin(devices(4, 10)));
        String log = stderrOf(() -> {
            List<Future<?>> loops = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                loops.add(callers.submit(() -> {
                    for (int i = 0; i < 2500; i++) {
                        assertThat(code(() -> allocate("nope\nFORGED line"))).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    }
                    return null;
                }));
            }
            for (Future<?> loop : loops) {
                loop.get(120, TimeUnit.SECONDS);
            }
            return null;
        });
        List<String> lines = log.lines().filter(l -> l.contains("Allocate refused")).toList();
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).contains("nope\\nFORGED line");
        assertThat(log).doesNotContain("\nFORGED");
    }

    /** What {@code body} makes the agent log (slf4j-simple and java.util.logging both write to stderr). */
    private static String stderrOf(java.util.concurrent.Callable<?> body) throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        java.util.logging.ConsoleHandler jul = new java.util.logging.ConsoleHandler();     // binds System.err now
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        root.addHandler(jul);
        try {
            body.call();
        } finally {
            root.removeHandler(jul);
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    private int limit() {
        return ((Number) host.servers().get(0).status().get("requestLimitBytes")).intValue();
    }

    private AllocateResponse allocate(String... ids) {
        return DevicePluginGrpc.newBlockingStub(channel).allocate(AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(List.of(ids))).build());
    }

    private static Status.Code code(Runnable call) {
        try {
            call.run();
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
    }

    static byte[] allocateOfSize(String id, int size) {
        return RawCalls.allocateOfSize(id, size);
    }

    static List<Device> devices(int n, int idLength) {
        List<Device> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String id = String.format("test_a-%04d", i);
            list.add(new Device(id + "x".repeat(Math.max(0, idLength - id.length())), true, List.of()));
        }
        return list;
    }

    /** {@link TestPlugin}'s answers, with an Allocate that can be made to wait until released or interrupted. */
    private static final class BlockingPlugin implements io.rdmanode.kubelet.DevicePlugin {

        private final TestPlugin answers;
        private volatile CountDownLatch gate = new CountDownLatch(0);
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger interrupted = new AtomicInteger();

        BlockingPlugin(List<Device> devices) {
            this.answers = new TestPlugin(RESOURCE, devices);
        }

        void block() {
            gate = new CountDownLatch(1);
        }

        void release() {
            gate.countDown();
        }

        @Override
        public String resourceName() {
            return RESOURCE;
        }

        @Override
        public List<Device> devices() {
            return answers.devices();
        }

        @Override
        public ContainerAllocation allocate(List<String> deviceIds) {
            inside.incrementAndGet();
            try {
                gate.await();
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted");
            } finally {
                inside.decrementAndGet();
            }
            return answers.allocate(deviceIds);
        }
    }
}
