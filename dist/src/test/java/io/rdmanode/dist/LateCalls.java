// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import io.rdmanode.kubelet.testing.KubeletDouble;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Admissions kubelet began before it switched a resource to the successor: GetPreferredAllocation and Allocate
 * through the predecessor's replaced endpoint (its stream still open), in a loop on a thread of its own until
 * {@link #close()}. Each call's start and end ({@link System#nanoTime()}) and error are kept, so that a test can
 * tell the calls sent before the predecessor's SIGTERM (which must all succeed: it finishes calls in flight) from
 * those sent after (refused once its endpoint is gone, as a kubelet call to a stopped plugin is).
 */
final class LateCalls implements AutoCloseable {

    /** One admission: when it began and ended, and why it failed (null if it did not). */
    record Call(String resource, long start, long end, String error) {
    }

    final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
    private final KubeletDouble kubelet;
    private final List<String> resources;
    private final Thread thread;
    private volatile boolean running = true;

    LateCalls(KubeletDouble kubelet, List<String> resources) {
        this.kubelet = kubelet;
        this.resources = List.copyOf(resources);
        this.thread = new Thread(this::loop, "handover-load-late-calls");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        long pod = 0;
        while (running) {
            for (String resource : resources) {
                String name = "late" + pod++;
                long start = System.nanoTime();
                String error = null;
                try {
                    kubelet.admitOnReplaced("late", name, "c", resource, 1);
                } catch (RuntimeException e) {
                    error = e.getMessage();
                } finally {
                    kubelet.remove("late", name);
                }
                calls.add(new Call(resource, start, System.nanoTime(), error));
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                running = false;
            }
        }
    }

    /** Calls that began before {@code nanos} and failed. */
    List<Call> failedBefore(long nanos) {
        return calls.stream().filter(c -> c.start() < nanos && c.error() != null).toList();
    }

    /** Calls that began before {@code nanos} and ended after it (in flight at that moment). */
    long inFlightAt(long nanos) {
        return calls.stream().filter(c -> c.start() < nanos && c.end() > nanos).count();
    }

    /** Calls that began before {@code nanos} and succeeded. */
    long okBefore(long nanos) {
        return calls.stream().filter(c -> c.start() < nanos && c.error() == null).count();
    }

    /** The distinct errors of calls that began after {@code nanos}, with their counts. */
    java.util.Map<String, Long> errorsAfter(long nanos) {
        return calls.stream().filter(c -> c.start() >= nanos && c.error() != null)
                .collect(java.util.stream.Collectors.groupingBy(c -> c.error().replaceAll("\\d+", "N"),
                        java.util.TreeMap::new, java.util.stream.Collectors.counting()));
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
