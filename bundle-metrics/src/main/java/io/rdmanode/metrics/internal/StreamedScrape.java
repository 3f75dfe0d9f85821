// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import io.prometheus.metrics.model.registry.PrometheusScrapeRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * The request of one registry scrape whose {@link StreamedCollector}s hand over their families here instead of
 * returning snapshots ({@link GuardedCollector} sees it). It is not a request any collector acts on: the guard
 * passes none on to the collectors it wraps.
 */
final class StreamedScrape implements PrometheusScrapeRequest {

    private final List<StreamedFamilies> streams = new ArrayList<>();

    synchronized void add(StreamedFamilies families) {
        streams.add(families);
    }

    synchronized List<StreamedFamilies> streams() {
        return List.copyOf(streams);
    }

    @Override
    public String getRequestPath() {
        return null;
    }

    @Override
    public String[] getParameterValues(String name) {
        return null;
    }
}
