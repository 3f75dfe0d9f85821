// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import java.util.function.Predicate;

/**
 * The series of RDMA devices in pods, as a service inside this bundle. It exists only while the CNI plugin and
 * the netlink bundle do; the host collector binds it optionally, so its own class never names their types
 * and loads without them.
 */
public interface PodPortSource {

    /** The pod devices' series, with the host collector's device filter and hw_counters choice. */
    List<MetricSnapshots> read(Predicate<String> devices, boolean hwCounters);
}
