// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

/**
 * Counters and gauges of one served resource, read by a metrics bundle at scrape time
 * ({@code rdma_agent_deviceplugin_*}). Counters only grow while the resource is served.
 *
 * @param registrations         successful {@code Register} calls (first one and after kubelet restarts)
 * @param registrationFailures  failed {@code Register} calls
 * @param allocations           {@code Allocate} container requests answered
 * @param allocationFailures    {@code Allocate} calls answered with an error
 * @param allocateSeconds       total time spent answering {@code Allocate}, in seconds
 * @param listAndWatchUpdates   device lists sent on {@code ListAndWatch} streams
 * @param devicesAdvertised     IDs in the current device list
 * @param devicesHealthy        of those, healthy ones
 * @param registered            kubelet accepted the latest registration
 * @since 1.0
 */
public record ResourceFigures(String resourceName, long registrations, long registrationFailures,
                              long allocations, long allocationFailures, double allocateSeconds,
                              long listAndWatchUpdates, int devicesAdvertised, int devicesHealthy,
                              boolean registered) {
}
