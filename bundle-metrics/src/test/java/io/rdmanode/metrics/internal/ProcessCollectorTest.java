// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessCollectorTest {

    @TempDir
    Path dir;

    @Test
    void reportsTheProcessFootprintUnderTheStandardNames() throws IOException {
        String text = new String(ScrapeHandler.render(PrometheusTextFormatWriter.create(),
                new ProcessCollector(Path.of("/proc/self/status")).collect(), false), StandardCharsets.UTF_8);
        assertThat(text).contains("# TYPE process_cpu_seconds_total counter\n", "process_resident_memory_bytes ",
                "process_open_fds ", "process_start_time_seconds ", "jvm_memory_used_bytes{area=\"heap\"} ",
                "jvm_threads_current ");
    }

    @Test
    void readsResidentMemoryFromProcStatusInKilobytes() throws IOException {
        Path status = dir.resolve("status");
        Files.writeString(status, "Name:\tjava\nVmPeak:\t 4000 kB\nVmRSS:\t   95232 kB\nThreads:\t35\n");
        assertThat(new ProcessCollector(status).residentBytes()).hasValue(95232 * 1024d);
        assertThat(new ProcessCollector(dir.resolve("absent")).residentBytes()).isEmpty();
    }
}
