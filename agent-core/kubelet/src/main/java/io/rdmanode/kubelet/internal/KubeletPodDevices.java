// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.kubelet.HeldDevice;
import io.rdmanode.kubelet.PodDevices;
import io.rdmanode.kubelet.PodDevicesException;
import io.rdmanode.kubelet.PodHoldings;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link PodDevices} from kubelet: the pod-resources API first, the device-manager checkpoint when the API does
 * not answer within the deadline. Owns its event loop (one thread) and the executor of its calls. Calls run
 * concurrently (no lock): each blocks at most the deadline plus a file read.
 */
public final class KubeletPodDevices implements PodDevices, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KubeletPodDevices.class);

    private final ExecutorService executor;
    private final UdsTransport transport;
    private final PodResourcesClient client;
    private final Clock clock;
    private volatile PodResourcesSettings settings;
    private final AtomicReference<Map<String, Object>> last = new AtomicReference<>(Map.of("source", "none yet"));

    public KubeletPodDevices(PodResourcesSettings settings) {
        this(settings, Clock.systemUTC());
    }

    KubeletPodDevices(PodResourcesSettings settings, Clock clock) {
        AtomicInteger n = new AtomicInteger();
        this.executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "rdma-agent-kubelet-podresources-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.transport = new UdsTransport(1, "rdma-agent-kubelet-podresources-io", executor);
        this.client = new PodResourcesClient(transport);
        this.settings = settings;
        this.clock = clock;
    }

    /** Takes effect at the next call; nothing is held between calls. */
    public void update(PodResourcesSettings next) {
        this.settings = next;
    }

    public PodResourcesSettings settings() {
        return settings;
    }

    @Override
    public PodHoldings running() {
        PodResourcesSettings s = settings;
        String reason;
        try {
            List<HeldDevice> devices = client.list(s);
            return remember(new PodHoldings(PodHoldings.Source.POD_RESOURCES_API, devices, "", clock.instant()));
        } catch (PodResourcesClient.UnreachableException e) {
            reason = e.getMessage();
        }
        try {
            List<HeldDevice> devices = KubeletCheckpoint.read(s.checkpoint());
            LOG.warn("kubelet pod-resources API not used ({}): read {} held device(s) from {}", reason,
                    devices.size(), s.checkpoint());
            return remember(new PodHoldings(PodHoldings.Source.CHECKPOINT, devices, reason, clock.instant()));
        } catch (KubeletCheckpoint.CheckpointException e) {
            String both = "cannot tell what running pods hold: " + reason + "; " + e.getMessage();
            Map<String, Object> failed = new LinkedHashMap<>();
            failed.put("source", "none");
            failed.put("at", clock.instant().toString());
            failed.put("error", both);
            last.set(failed);
            throw new PodDevicesException(both, e);
        }
    }

    private PodHoldings remember(PodHoldings holdings) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("source", holdings.source().name());
        m.put("at", holdings.readAt().toString());
        m.put("heldDevices", holdings.devices().size());
        if (!holdings.fallbackReason().isEmpty()) {
            m.put("fallbackReason", holdings.fallbackReason());
        }
        last.set(m);
        return holdings;
    }

    /** The {@code /status} view: where the last answer came from and when, and the configured sources. */
    public Map<String, Object> status() {
        PodResourcesSettings s = settings;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("socket", s.socket().toString());
        m.put("checkpoint", s.checkpoint().toString());
        m.put("last", last.get());
        return m;
    }

    @Override
    public void close() {
        client.close();
        transport.close(2000);
        executor.shutdownNow();
    }
}
