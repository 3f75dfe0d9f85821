// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.rdmanode.discovery.RdmaCounter;
import io.rdmanode.discovery.RdmaCounters;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Reads a plan's values through discovery's prepared readers, in slices of consecutive values (devices in
 * order): the calling thread reads the first slice and {@code executor}'s threads the others at the same time,
 * since a big host's scrape is thousands of small sysfs reads, each a few microseconds of kernel time that
 * another core can do meanwhile. Without an executor, or when it refuses (the component is stopping), the caller
 * reads them all: a pod's device is read only on its own thread, the one inside the pod's namespace.
 */
final class ValueReader {

    private final List<RdmaCounters.Reader> slices;
    private final int[] offsets;
    private final int size;
    private final Executor executor;

    private ValueReader(List<RdmaCounters.Reader> slices, Executor executor) {
        this.slices = slices;
        this.executor = executor;
        this.offsets = new int[slices.size()];
        int n = 0;
        for (int i = 0; i < slices.size(); i++) {
            offsets[i] = n;
            n += slices.get(i).size();
        }
        this.size = n;
    }

    /** @param executor null: one slice, read by the caller */
    static ValueReader of(RdmaCounters counters, List<RdmaCounter> reads, int slices, Executor executor) {
        int k = executor == null ? 1 : Math.max(1, Math.min(slices, reads.size() / 64));
        List<RdmaCounters.Reader> readers = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
            readers.add(counters.reader(List.copyOf(reads.subList(reads.size() * i / k, reads.size() * (i + 1) / k))));
        }
        return new ValueReader(List.copyOf(readers), executor);
    }

    int size() {
        return size;
    }

    /** Every value now, NaN where discovery could not read one. */
    double[] read() {
        double[] out = new double[size];
        List<CompletableFuture<Void>> others = new ArrayList<>(slices.size() - 1);
        for (int i = 1; i < slices.size(); i++) {
            int slice = i;
            try {
                others.add(CompletableFuture.runAsync(() -> read(slice, out), executor));
            } catch (RejectedExecutionException stopping) {
                read(slice, out);
            }
        }
        read(0, out);
        try {
            CompletableFuture.allOf(others.toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
        return out;
    }

    private void read(int slice, double[] out) {
        RdmaCounters.Reader r = slices.get(slice);
        double[] values = new double[r.size()];
        r.read(values);
        System.arraycopy(values, 0, out, offsets[slice], values.length);
    }
}
