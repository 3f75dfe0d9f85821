// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import io.rdmanode.discovery.PciAddress;
import java.util.HashSet;
import java.util.Set;

/**
 * What kernel events said changed, accumulated until the next incremental scan. {@code full} asks for a
 * complete rescan (an event the incremental path cannot place, or the periodic safety net).
 */
public final class ScanHints {

    private final Set<String> rdmaDevices = new HashSet<>();
    private final Set<String> netDevices = new HashSet<>();
    private final Set<PciAddress> pciFunctions = new HashSet<>();
    private boolean full;

    public static ScanHints fullScan() {
        ScanHints h = new ScanHints();
        h.full = true;
        return h;
    }

    public ScanHints rdmaDevice(String name) {
        rdmaDevices.add(name);
        return this;
    }

    public ScanHints netDevice(String name) {
        netDevices.add(name);
        return this;
    }

    public ScanHints pciFunction(PciAddress address) {
        pciFunctions.add(address);
        return this;
    }

    public ScanHints requestFull() {
        full = true;
        return this;
    }

    public void mergeFrom(ScanHints other) {
        rdmaDevices.addAll(other.rdmaDevices);
        netDevices.addAll(other.netDevices);
        pciFunctions.addAll(other.pciFunctions);
        full |= other.full;
    }

    public boolean isFull() {
        return full;
    }

    public boolean isEmpty() {
        return !full && rdmaDevices.isEmpty() && netDevices.isEmpty() && pciFunctions.isEmpty();
    }

    public Set<String> rdmaDevices() {
        return Set.copyOf(rdmaDevices);
    }

    public Set<String> netDevices() {
        return Set.copyOf(netDevices);
    }

    public Set<PciAddress> pciFunctions() {
        return Set.copyOf(pciFunctions);
    }

    @Override
    public String toString() {
        return full ? "full" : "rdma=" + rdmaDevices + " net=" + netDevices + " pci=" + pciFunctions;
    }
}
