// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The {@code metrics} section of agent.conf (PID {@code io.rdmanode.metrics}). One definition serves the
 * endpoint and the RDMA counter collector, which share the PID, so the config bridge validates every key
 * against one OCD.
 */
@ObjectClassDefinition(name = "Metrics endpoint and RDMA port counters")
public @interface MetricsConfig {

    String PID = "io.rdmanode.metrics";

    @AttributeDefinition(description = "Path served on the agent's HTTP port")
    String path() default "/metrics";

    @AttributeDefinition(description = "Regular expression: only RDMA devices whose name matches are reported"
            + " (empty = all); node_exporter's --collector.infiniband.device-include")
    String deviceInclude() default "";

    @AttributeDefinition(description = "Regular expression: RDMA devices whose name matches are not reported"
            + " (empty = none), e.g. firmware-restricted devices whose counters flood the kernel log")
    String deviceExclude() default "";

    @AttributeDefinition(description = "Also report the driver's hw_counters (RoCE congestion, retransmission,"
            + " out-of-buffer, ...)")
    boolean hwCounters() default true;
}
