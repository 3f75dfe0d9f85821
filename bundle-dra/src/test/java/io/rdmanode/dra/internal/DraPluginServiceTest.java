// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.rdmanode.dra.internal.v1.Claim;
import io.rdmanode.dra.internal.v1.DRAPluginGrpc;
import io.rdmanode.dra.internal.v1.NodePrepareResourcesRequest;
import io.rdmanode.dra.internal.v1.NodePrepareResourcesResponse;
import io.rdmanode.kubelet.testing.UnixSockets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DRAPlugin service's bounds through a real Unix socket: call slots, and a call its client gave up on. The
 * claims stand still in a preparation that waits, as a Prepare does on a hanging API server.
 */
class DraPluginServiceTest {

    @TempDir
    Path dir;

    private final CountDownLatch apiServer = new CountDownLatch(1);
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger prepared = new AtomicInteger();
    private final DraStats stats = new DraStats();
    /**
     * The calls' and the client's threads: not the common pool, which has one thread on a 2-CPU machine (the
     * held calls would then wait for each other, not for the slots).
     */
    private final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();
    private UnixSockets.Servers servers;
    private UnixSockets.Client client;
    private Path socket;

    @BeforeEach
    void serve() throws Exception {
        ClaimPreparation hanging = new ClaimPreparation() {
            @Override
            public PrepareOutcome prepare(ClaimRef claim) {
                started.incrementAndGet();
                try {
                    apiServer.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                prepared.incrementAndGet();
                return PrepareOutcome.prepared(List.of());
            }

            @Override
            public Optional<String> unprepare(ClaimRef claim) {
                return Optional.empty();
            }
        };
        servers = new UnixSockets.Servers();
        socket = dir.resolve("dra.sock");
        servers.serve(socket, PosixFilePermissions.fromString("rw-------"),
                List.of(new DraPluginService(hanging, stats)));
        client = new UnixSockets.Client(1, "dra-test-client-io", threads);
    }

    @AfterEach
    void stop() throws Exception {
        apiServer.countDown();
        client.close();
        servers.close();
        threads.shutdownNow();
    }

    @Test
    void callsPastTheSlotsAreRefusedAtOnceAndServedAgainOnceOneEnds() throws Exception {
        ManagedChannel channel = client.dial(socket);
        List<CompletableFuture<NodePrepareResourcesResponse>> held = new ArrayList<>();
        for (int i = 0; i < DraPluginService.MAX_CALLS; i++) {
            Claim claim = KubeletDouble.claim("ns", "c" + i, "uid-" + i);
            held.add(CompletableFuture.supplyAsync(() -> DRAPluginGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(30, TimeUnit.SECONDS).nodePrepareResources(request(claim)), threads));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == DraPluginService.MAX_CALLS);

        assertThatThrownBy(() -> DRAPluginGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
                .nodePrepareResources(request(KubeletDouble.claim("ns", "one-more", "uid-x"))))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                    assertThat(e.getStatus().getDescription()).contains("retry");
                });
        assertThat(stats.callsRefusedBusy.sum()).isEqualTo(1);

        apiServer.countDown();
        for (CompletableFuture<NodePrepareResourcesResponse> call : held) {
            assertThat(call.get(10, TimeUnit.SECONDS).getClaimsCount()).isEqualTo(1);
        }
        assertThat(DRAPluginGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS)
                .nodePrepareResources(request(KubeletDouble.claim("ns", "later", "uid-l"))).getClaimsCount())
                .isEqualTo(1);
    }

    @Test
    void aCallItsClientGaveUpOnPreparesNoFurtherClaim() throws Exception {
        ManagedChannel channel = client.dial(socket);
        NodePrepareResourcesRequest pod = NodePrepareResourcesRequest.newBuilder()
                .addClaims(KubeletDouble.claim("ns", "first", "uid-1"))
                .addClaims(KubeletDouble.claim("ns", "second", "uid-2")).build();

        DRAPluginGrpc.newBlockingStub(channel).nodePrepareResources(NodePrepareResourcesRequest.getDefaultInstance());
        CompletableFuture<NodePrepareResourcesResponse> call = CompletableFuture.supplyAsync(() -> DRAPluginGrpc
                .newBlockingStub(channel).withDeadlineAfter(2, TimeUnit.SECONDS).nodePrepareResources(pod), threads);
        await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 1);   // the first claim's read hangs

        assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(StatusRuntimeException.class)
                .cause().satisfies(e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
                        .isEqualTo(Status.Code.DEADLINE_EXCEEDED));
        apiServer.countDown();                            // the read comes back, after kubelet gave up

        await().atMost(Duration.ofSeconds(10)).until(() -> stats.callsAbandoned.sum() == 1);
        assertThat(prepared).as("the second claim was not prepared for nobody").hasValue(1);
        assertThat(started).hasValue(1);
    }

    private static NodePrepareResourcesRequest request(Claim claim) {
        return NodePrepareResourcesRequest.newBuilder().addClaims(claim).build();
    }
}
