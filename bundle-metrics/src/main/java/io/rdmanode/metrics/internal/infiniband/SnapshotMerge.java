// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Joins the families of several reads into one set: a family name appears once, its data points from every
 * read that has it (a pod's device adds its points to the host's families). Only the three kinds the RDMA
 * collector makes; a family that clashes in kind keeps the first read's, and a data point whose labels are
 * already in the family is dropped, so the result is always a valid exposition.
 */
final class SnapshotMerge {

    private SnapshotMerge() {
    }

    static MetricSnapshots merge(MetricSnapshots first, List<MetricSnapshots> more) {
        if (more.isEmpty()) {
            return first;
        }
        Map<String, MetricSnapshot> families = new LinkedHashMap<>();
        first.forEach(m -> families.put(m.getMetadata().getPrometheusName(), m));
        for (MetricSnapshots s : more) {
            for (MetricSnapshot m : s) {
                families.merge(m.getMetadata().getPrometheusName(), m, SnapshotMerge::join);
            }
        }
        return new MetricSnapshots(families.values());
    }

    private static MetricSnapshot join(MetricSnapshot a, MetricSnapshot b) {
        if (a instanceof CounterSnapshot x && b instanceof CounterSnapshot y) {
            return new CounterSnapshot(x.getMetadata(), distinct(x.getDataPoints(), y.getDataPoints()));
        }
        if (a instanceof GaugeSnapshot x && b instanceof GaugeSnapshot y) {
            return new GaugeSnapshot(x.getMetadata(), distinct(x.getDataPoints(), y.getDataPoints()));
        }
        if (a instanceof InfoSnapshot x && b instanceof InfoSnapshot y) {
            return new InfoSnapshot(x.getMetadata(), distinct(x.getDataPoints(), y.getDataPoints()));
        }
        return a;
    }

    private static <P extends DataPointSnapshot> List<P> distinct(
            List<P> a, List<P> b) {
        List<P> out = new ArrayList<>(a.size() + b.size());
        Set<Labels> seen = new HashSet<>();
        for (P p : a) {
            if (seen.add(p.getLabels())) {
                out.add(p);
            }
        }
        for (P p : b) {
            if (seen.add(p.getLabels())) {
                out.add(p);
            }
        }
        return out;
    }
}
