// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.UnixOperatingSystemMXBean;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The agent process's own footprint under the standard names (client_java's and the Go client's
 * {@code process_*}, {@code jvm_*}), so the node agent's CPU and memory budget can be watched like any other
 * exporter's. client_java's instrumentation-jvm module is not used: the versions matching 1.8.0 do not resolve
 * here (java-stack.md §1).
 */
final class ProcessCollector implements MultiCollector {

    private final OperatingSystemMXBean os =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final Path status;

    ProcessCollector(Path procSelfStatus) {
        this.status = procSelfStatus;
    }

    @Override
    public MetricSnapshots collect() {
        List<MetricSnapshot> out = new ArrayList<>();
        out.add(new CounterSnapshot(new MetricMetadata("process_cpu_seconds", "Total user and system CPU time"
                + " spent in seconds.", Unit.SECONDS), List.of(new CounterDataPointSnapshot(
                        os.getProcessCpuTime() / 1e9, Labels.EMPTY, null, 0L))));
        out.add(gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
                Unit.SECONDS, ManagementFactory.getRuntimeMXBean().getStartTime() / 1e3));
        out.add(gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", Unit.BYTES,
                os.getCommittedVirtualMemorySize()));
        residentBytes().ifPresent(rss -> out.add(gauge("process_resident_memory_bytes",
                "Resident memory size in bytes.", Unit.BYTES, rss)));
        if (os instanceof UnixOperatingSystemMXBean unix) {
            out.add(gauge("process_open_fds", "Number of open file descriptors.", null,
                    unix.getOpenFileDescriptorCount()));
            out.add(gauge("process_max_fds", "Maximum number of open file descriptors.", null,
                    unix.getMaxFileDescriptorCount()));
        }
        out.add(new GaugeSnapshot(new MetricMetadata("jvm_memory_used_bytes", "Used bytes of a given JVM memory"
                + " area.", Unit.BYTES), List.of(
                        new GaugeDataPointSnapshot(memory.getHeapMemoryUsage().getUsed(), Labels.of("area", "heap"), null),
                        new GaugeDataPointSnapshot(memory.getNonHeapMemoryUsage().getUsed(),
                                Labels.of("area", "nonheap"), null))));
        out.add(gauge("jvm_threads_current", "Current thread count of a JVM", null,
                ManagementFactory.getThreadMXBean().getThreadCount()));
        return new MetricSnapshots(out);
    }

    /** {@code VmRSS} of {@code /proc/self/status} ({@code proc(5)}), in kB there. */
    OptionalDouble residentBytes() {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmRSS:")) {
                    String kb = line.substring(6).trim().split("\\s+")[0];
                    return OptionalDouble.of(Long.parseLong(kb) * 1024d);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.empty();
    }

    private static GaugeSnapshot gauge(String name, String help, Unit unit, double value) {
        return new GaugeSnapshot(new MetricMetadata(name, help, unit),
                List.of(new GaugeDataPointSnapshot(value, Labels.EMPTY, null)));
    }
}
