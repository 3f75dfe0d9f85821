// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.deviceplugin.CdiDevice;
import io.rdmanode.deviceplugin.CdiSpec;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a CDI spec goes ({@link CdiSpecs}), on real files with a kubelet whose answer the test sets: never on stop,
 * never while a device of its resource is held, at start only for pools that are not configured, and only once
 * kubelet has answered and while no successor owns the state directory.
 */
class CdiSpecLifetimeTest {

    private static final Duration SETTLE = Duration.ofMillis(400);
    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;
    private final List<AllocationLedger.Holding> running = new CopyOnWriteArrayList<>();
    private final AtomicBoolean kubeletUp = new AtomicBoolean(true);
    private final AtomicBoolean handedOver = new AtomicBoolean();
    private final List<Layer> layers = new CopyOnWriteArrayList<>();

    /** An agent's layer over {@code dir/state}: reconciles every 100 ms with {@link #running}. */
    private Layer layer() {
        Path cdi = dir.resolve("cdi");
        Layer l = new Layer(new LayerSettings(DevicePaths.DEFAULT, List.of(cdi)),
                AllocationLedger.at(dir.resolve("state/allocations"), Clock.systemUTC()),
                Optional.of(dir.resolve("state/" + Layer.CDI_INDEX)), () -> {
                    if (!kubeletUp.get()) {
                        throw new IllegalStateException("kubelet's PodDevices service is not there (yet)");
                    }
                    return new HeldDevices.Kubelet.Answer(List.copyOf(running), "test");
                }, Duration.ofMillis(100), SETTLE, handedOver::get);
        layers.add(l);
        return l;
    }

    @AfterEach
    void stop() {
        layers.forEach(Layer::close);
    }

    private static CdiSpec written(Layer layer, String pool, String resource) throws Exception {
        CdiSpec spec = layer.cdiSpec(layer.settings().cdiSpecDirs().get(0), "rdmanode.io/hca", pool, resource);
        spec.write(List.of(new CdiDevice(pool, List.of(new DeviceNode("/dev/infiniband/uverbs0",
                "/dev/infiniband/uverbs0", "rw")), Map.of())));
        return spec;
    }

    private void hold(String resource, String id) {
        running.add(new AllocationLedger.Holding(resource, id, "ns/pod-" + id + "/c"));
    }

    /** Long enough for the settle time and a few reconciliations. */
    private static void pastSettle() throws InterruptedException {
        Thread.sleep(SETTLE.toMillis() + 500);
    }

    @Test
    void stoppingAPoolOrTheAgentRemovesNoSpec() throws Exception {
        Layer first = layer();
        CdiSpec a = written(first, "a", "rdma/a");
        CdiSpec b = written(first, "b", "rdma/b");
        hold("rdma/a", "a-0");

        a.close();                                           // a pool stops (bundle stop, hot swap)
        b.close();
        first.close();                                       // the agent stops
        assertThat(a.file()).exists();
        assertThat(b.file()).as("nothing held, but only stopped: kept for the next start").exists();

        // The next instance starts with both pools configured: both stay, and are written again.
        Layer second = layer();
        written(second, "a", "rdma/a");
        written(second, "b", "rdma/b");
        pastSettle();
        assertThat(a.file()).exists();
        assertThat(b.file()).exists();
        assertThat(second.cdiSpecsRemoved()).isEmpty();
    }

    @Test
    void aStartKeepsSpecsInUseAndOfUnconfiguredHeldPoolsAndRemovesUnconfiguredUnheldOnes() throws Exception {
        Layer first = layer();
        CdiSpec configuredHeld = written(first, "a", "rdma/a");
        CdiSpec configuredFree = written(first, "b", "rdma/b");
        CdiSpec goneHeld = written(first, "c", "rdma/c");
        CdiSpec goneFree = written(first, "d", "rdma/d");
        first.close();                                       // as after a SIGKILL: nothing was removed
        hold("rdma/a", "a-0");
        hold("rdma/c", "c-3");

        Layer second = layer();
        written(second, "a", "rdma/a");                      // the configured pools start
        written(second, "b", "rdma/b");
        assertThat(goneFree.file()).as("within the settle time every pool may still start").exists();

        // The sweep removes the file, then records it: wait for the record (a full run on JDK 25 saw the gap).
        Awaitility.await().atMost(WAIT).until(() -> !Files.exists(goneFree.file())
                && !second.cdiSpecsRemoved().isEmpty());
        assertThat(configuredHeld.file()).exists();
        assertThat(configuredFree.file()).exists();
        assertThat(goneHeld.file()).as("its pool is not configured, but a pod holds a device of it").exists();
        assertThat(second.cdiSpecsRemoved()).singleElement().asString().contains(goneFree.file().toString(),
                "not configured");
        assertThat(second.cdiSpecsKept()).containsOnlyKeys(goneHeld.file().toString());

        // The pod holding c's device ends: the spec goes at the next sweep.
        running.removeIf(h -> h.resource().equals("rdma/c"));
        Awaitility.await().atMost(WAIT).until(() -> !Files.exists(goneHeld.file()));
    }

    @Test
    void aSpecOfAnUnknownResourceStaysWhileAnyDeviceIsHeld() throws Exception {
        Files.createDirectories(dir.resolve("cdi"));
        Path unknown = Files.writeString(dir.resolve("cdi/rdmanode.io-vf_old.json"), "{}");  // no index entry
        hold("rdma/x", "0000:3b:00.2");

        layer();
        pastSettle();
        assertThat(unknown).exists();

        running.clear();
        Awaitility.await().atMost(WAIT).until(() -> !Files.exists(unknown));
    }

    @Test
    void aRetiredPoolsSpecGoesWhenItsLastHeldDeviceIsReleasedUnlessAPoolTakesItBack() throws Exception {
        Layer layer = layer();
        CdiSpec a = written(layer, "a", "rdma/a");
        CdiSpec b = written(layer, "b", "rdma/b");
        hold("rdma/a", "a-0");
        hold("rdma/a", "a-1");

        a.close();
        layer.retire("rdma/a");            // its configuration was deleted
        b.close();
        layer.retire("rdma/b");
        Awaitility.await().atMost(WAIT).until(() -> !Files.exists(b.file()));   // nothing of b held: at once
        assertThat(a.file()).exists();

        running.removeIf(h -> h.deviceId().equals("a-0"));
        Thread.sleep(500);
        assertThat(a.file()).as("a-1 still held").exists();
        running.clear();
        Awaitility.await().atMost(WAIT).until(() -> !Files.exists(a.file()));

        // An edit that keeps CDI on: retired, then claimed again by the pool as it starts: it stays.
        CdiSpec c = written(layer, "c", "rdma/c");
        c.close();
        layer.retire("rdma/c");
        written(layer, "c", "rdma/c");
        Thread.sleep(500);
        assertThat(c.file()).exists();
    }

    @Test
    void nothingGoesBeforeKubeletAnswersNorOnceASuccessorOwnsTheStateDirectory() throws Exception {
        Layer first = layer();
        CdiSpec a = written(first, "a", "rdma/a");
        first.close();

        kubeletUp.set(false);
        Layer second = layer();
        pastSettle();
        assertThat(a.file()).as("nobody knows yet who holds what").exists();
        assertThat(second.cdiSpecsKept().get(a.file().toString())).contains("kubelet not asked yet");

        handedOver.set(true);
        kubeletUp.set(true);
        second.reconcileNow();
        Thread.sleep(500);
        assertThat(a.file()).as("the successor's now").exists();

        handedOver.set(false);
        Awaitility.await().atMost(WAIT).until(() -> !Files.exists(a.file()));
    }
}
