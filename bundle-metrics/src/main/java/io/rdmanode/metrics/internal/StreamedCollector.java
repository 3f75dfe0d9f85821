// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import io.prometheus.metrics.model.registry.MultiCollector;
import java.util.Optional;

/**
 * A collector whose families are too many to build as snapshots on every scrape (the RDMA counters of a big host:
 * 40,000 series): the endpoint asks it to {@link #stream()} and writes the families straight into the response.
 * {@link #collect()} stays the reference for every other use (tests, a page that must fall back to client_java's
 * writer) and serves the same content.
 */
public interface StreamedCollector extends MultiCollector {

    /** The families read now; empty when this scrape should use {@link #collect()} instead. */
    Optional<StreamedFamilies> stream();
}
