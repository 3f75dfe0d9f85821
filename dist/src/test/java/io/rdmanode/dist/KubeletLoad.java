// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import io.rdmanode.kubelet.testing.KubeletDouble;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * kubelet's calls during a handover, on a thread of its own: round after round over every resource, through the
 * endpoint the kubelet double holds for it at that moment (its newest registration), GetDevicePluginOptions,
 * GetPreferredAllocation, then the admission of a one-device pod (GetPreferredAllocation when offered and
 * Allocate with IDs the double's book holds under no pod) and the pod's removal, so the book stays small. Each
 * call that fails is recorded with the resource, the endpoint it went to and the time since the load started.
 */
final class KubeletLoad implements AutoCloseable {

    final AtomicLong optionsOk = new AtomicLong();
    final AtomicLong preferredOk = new AtomicLong();
    final AtomicLong allocateOk = new AtomicLong();
    final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    /** Admissions kubelet would refuse itself: it held no endpoint for the resource at that moment. */
    final AtomicLong noEndpoint = new AtomicLong();
    private final KubeletDouble kubelet;
    private final List<String> resources;
    private final long started = System.nanoTime();
    private final Thread thread;
    private volatile boolean running = true;

    KubeletLoad(KubeletDouble kubelet, List<String> resources) {
        this.kubelet = kubelet;
        this.resources = List.copyOf(resources);
        this.thread = new Thread(this::loop, "handover-load-kubelet");
        thread.setDaemon(true);
        thread.start();
    }

    /** Allocate calls answered so far (one per admitted pod). */
    long calls() {
        return optionsOk.get() + preferredOk.get() + allocateOk.get();
    }

    private void loop() {
        long pod = 0;
        while (running) {
            for (String resource : resources) {
                String endpoint = "(none)";
                String call = "GetDevicePluginOptions";
                if (!kubelet.hasEndpoint(resource)) {
                    // kubelet holds no endpoint (before 1.35, right after the predecessor's stream ended): it
                    // fails such an admission itself ("no healthy devices"), no plugin call is made
                    noEndpoint.incrementAndGet();
                    continue;
                }
                try {
                    endpoint = kubelet.endpoint(resource);
                    kubelet.options(resource);
                    optionsOk.incrementAndGet();
                    call = "GetPreferredAllocation";
                    kubelet.preferred(resource, 1);
                    preferredOk.incrementAndGet();
                    call = "Allocate";
                    String name = "p" + pod++;
                    kubelet.admit("load", name, "c", resource, 1);
                    allocateOk.incrementAndGet();
                    kubelet.remove("load", name);
                } catch (RuntimeException | AssertionError e) {
                    String why = String.valueOf(e.getMessage());
                    failures.add("+" + (System.nanoTime() - started) / 1_000_000 + " ms " + call + " " + resource
                            + " on " + endpoint + ": " + (why.length() > 200 ? why.substring(0, 200) + "..." : why));
                }
            }
            pause();
        }
    }

    private void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            running = false;
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(20_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
