// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.agent.RefusalLog;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server's own figures, shown as the {@code http} member of {@code /status}: connections open now,
 * and totals of what the bounds turned away; and the log of those refusals, one line per kind and minute with a
 * count. Thread-safe.
 */
final class HttpServerStats {

    final RefusalLog refusals = new RefusalLog(LoggerFactory.getLogger(HealthHttpServer.class), Duration.ofMinutes(1));

    final AtomicInteger open = new AtomicInteger();
    final LongAdder accepted = new LongAdder();
    final LongAdder refusedAtBound = new LongAdder();
    final LongAdder cutAtHeaderTimeout = new LongAdder();
    final LongAdder closedIdle = new LongAdder();
    final LongAdder oversizeHeads = new LongAdder();
    final LongAdder badRequests = new LongAdder();
    final LongAdder bodiesRefused = new LongAdder();
    final LongAdder busy = new LongAdder();
    final LongAdder cutAtWriteTimeout = new LongAdder();
    final LongAdder pipelineOverflows = new LongAdder();

    Map<String, Object> status(HttpSettings settings) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("connections", open.get());
        m.put("maxConnections", settings.maxConnections());
        m.put("acceptedTotal", accepted.sum());
        m.put("refusedAtBoundTotal", refusedAtBound.sum());
        m.put("cutAtHeaderTimeoutTotal", cutAtHeaderTimeout.sum());
        m.put("closedIdleTotal", closedIdle.sum());
        m.put("cutAtWriteTimeoutTotal", cutAtWriteTimeout.sum());
        m.put("oversizeHeadsTotal", oversizeHeads.sum());
        m.put("badRequestsTotal", badRequests.sum());
        m.put("bodiesRefusedTotal", bodiesRefused.sum());
        m.put("busyTotal", busy.sum());
        m.put("pipelineOverflowsTotal", pipelineOverflows.sum());
        return m;
    }
}
