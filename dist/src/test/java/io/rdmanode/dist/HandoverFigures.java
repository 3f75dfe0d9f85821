// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What {@link HandoverIT} prints (and {@code scripts/bench-handover} reports): a line per round, then a summary over
 * the rounds: failed calls (the goal is 0), handover time from the successor's exec to every door served (p50 and
 * the longest), the longest time between two answered {@code /healthz} polls, the RSS of both processes during the
 * handover, and the machine's load average before and after.
 */
final class HandoverFigures {

    private final List<String> lines = new ArrayList<>();
    private final List<Long> handoverMillis = new ArrayList<>();
    private final List<Long> gapMillis = new ArrayList<>();
    private long maxRssOld;
    private long maxRssNew;
    private final String loadBefore = loadAverage();
    private LongSupplier failedCalls = () -> 0;
    private long lateFailures;

    synchronized void failedCalls(LongSupplier failed) {
        this.failedCalls = failed;
    }

    /** Admissions sent to a predecessor before its SIGTERM that failed. */
    synchronized void lateFailures(long count) {
        lateFailures += count;
    }

    synchronized void line(String line) {
        lines.add(line);
    }

    synchronized void round(long handover, long gap, long rssOld, long rssNew) {
        handoverMillis.add(handover);
        gapMillis.add(gap);
        maxRssOld = Math.max(maxRssOld, rssOld);
        maxRssNew = Math.max(maxRssNew, rssNew);
    }

    synchronized void print() {
        lines.forEach(line -> System.out.println("HandoverIT " + line));
        List<Long> h = new ArrayList<>(handoverMillis);
        Collections.sort(h);
        System.out.println("HandoverIT summary: " + h.size() + " handovers, failed calls "
                + (failedCalls.getAsLong() + lateFailures) + " (goal 0); handover (successor exec -> every door"
                + " served) p50 " + percentile(h, 50) + " ms, max "
                + (h.isEmpty() ? "-" : h.get(h.size() - 1)) + " ms; max /healthz gap "
                + gapMillis.stream().mapToLong(Long::longValue).max().orElse(-1) + " ms (rounds over 100 ms: "
                + gapMillis.stream().filter(g -> g > 100).count() + "); RSS during the handover: predecessor max "
                + maxRssOld + " MB, successor max " + maxRssNew + " MB; load average before " + loadBefore
                + ", after " + loadAverage() + " (" + Runtime.getRuntime().availableProcessors() + " CPUs)");
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).strip().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "?";
        }
    }

    private static String percentile(List<Long> sorted, int p) {
        if (sorted.isEmpty()) {
            return "-";
        }
        return Long.toString(sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1)));
    }
}
