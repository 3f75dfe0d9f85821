// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.deviceplugin.DeviceInfo;
import io.rdmanode.deviceplugin.PoolView;
import io.rdmanode.deviceplugin.ResourcePool;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.kubelet.ContainerAllocation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Allocates of different devices write their files at once (issue #23) and {@link HeldDeviceInfo#sync} still never
 * removes the file of a device the ledger holds.
 */
class HeldDeviceInfoTest {

    private static final String RESOURCE = "rdma/sriov_a";

    @TempDir
    Path dir;

    /** Device info for every VF ID; the view is not looked at. */
    private static final class VfPool implements ResourcePool {
        @Override
        public String name() {
            return "sriov_a";
        }

        @Override
        public String resourceName() {
            return RESOURCE;
        }

        @Override
        public PoolView compute(HostSnapshot host) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ContainerAllocation allocate(PoolView view, List<String> deviceIds) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<DeviceInfo> deviceInfo(PoolView view, String deviceId) {
            return Optional.of(new DeviceInfo(deviceId, Optional.of("0000:3b:00.0"), List.of("mlx5_" + deviceId)));
        }
    }

    private static String vf(int i) {
        return String.format("0000:3c:%02x.%d", i / 8, i % 8);
    }

    @Test
    void concurrentAllocatesOfDifferentDevicesEachKeepTheirFileWhileSyncRuns() throws Exception {
        // given a pool whose ledger kubelet has answered for (so sync may remove files nobody holds)
        HeldDevices held = new HeldDevices(AllocationLedger.at(dir.resolve("state/allocations"), Clock.systemUTC()),
                () -> new HeldDevices.Kubelet.Answer(List.of(), "test"));
        held.reconcile("test start");
        HeldDeviceInfo info = new HeldDeviceInfo(new VfPool(), held, dir.resolve("devinfo"));
        DeviceInfoFiles files = new DeviceInfoFiles(dir.resolve("devinfo"), RESOURCE);
        int devices = 200;

        // when 8 threads allocate 200 different VFs as Served does (record, then write) while sync runs in a loop
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean allocating = new AtomicBoolean(true);
        ConcurrentLinkedQueue<String> answered = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> seenMissing = new ConcurrentLinkedQueue<>();
        Thread syncing = new Thread(() -> {
            while (allocating.get()) {
                info.sync(null, null);
                // a held device's file is never removed, not even until the next sync writes it again
                answered.stream().filter(id -> !Files.exists(files.file(id))).forEach(seenMissing::add);
            }
        }, "test-sync");
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < devices; i++) {
                String id = vf(i);
                calls.add(pool.submit(() -> {
                    start.await();
                    held.allocated(RESOURCE, List.of(id));
                    info.allocated(null, List.of(id));
                    answered.add(id);
                    return null;
                }));
            }
            syncing.start();
            start.countDown();
            for (Future<?> call : calls) {
                call.get(30, TimeUnit.SECONDS);
            }
        } finally {
            allocating.set(false);
            pool.shutdown();
            syncing.join(10_000);
        }

        // then every allocation is in the ledger, and every file is there with its own device's content
        assertThat(info.problem()).isEmpty();
        assertThat(seenMissing).isEmpty();
        List<String> all = new ArrayList<>();
        for (int i = 0; i < devices; i++) {
            all.add(vf(i));
        }
        assertThat(held.heldBy()).containsOnlyKeys(all);
        assertThat(files.written()).containsExactlyElementsOf(all);
        for (String id : all) {
            assertThat(Files.readString(files.file(id))).isEqualTo(DeviceInfoFiles.content(
                    new DeviceInfo(id, Optional.of("0000:3b:00.0"), List.of("mlx5_" + id))));
        }
        try (var listing = Files.list(dir.resolve("devinfo"))) {
            assertThat(listing).hasSize(devices);                      // no temporary file left
        }
    }
}
