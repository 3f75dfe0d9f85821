// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

/**
 * Discovery's work figures, a service inside this bundle (its package is not exported): the discovery
 * component provides it and {@link DiscoveryCollector} reads it at scrape time.
 */
public interface DiscoveryFigures {

    /** What {@code rdma_agent_discovery_*} reports. */
    record Figures(long revision, int devices, int problems, long fullScans, long incrementalScans,
                   long failedScans, long kernelEvents, long verbsEvents) { }

    Figures figures();
}
