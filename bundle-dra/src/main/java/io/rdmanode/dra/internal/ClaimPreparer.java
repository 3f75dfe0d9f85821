// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.dra.internal.ClaimReader.AllocatedClaim;
import io.rdmanode.dra.internal.ClaimReader.ClaimReadException;
import io.rdmanode.dra.internal.ClaimReader.Result;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prepare and Unprepare, claim by claim. Prepare reads the claim (kubelet sends only its name and uid), takes the
 * allocation results of this driver, maps each device name to a device present on the node now, refuses a device
 * a device-plugin pod holds or another prepared claim holds, writes the claim's CDI spec, checkpoints the claim
 * and answers the CDI IDs. A claim already in the checkpoint (with its spec on disk) is answered from it without
 * asking the API server: kubelet repeats Prepare after restarts. A failure is the claim's error and changes
 * nothing on disk. Unprepare removes the spec and the checkpoint entry; an unknown claim succeeds (kubelet sends
 * Unprepare for claims whose Prepare never succeeded). What changes the node is serialised (rare and short); the
 * API server's answer is awaited outside that.
 */
final class ClaimPreparer implements ClaimPreparation {

    private static final Logger LOG = LoggerFactory.getLogger(ClaimPreparer.class);

    private final String driverName;
    private final ClaimReader reader;
    private final Supplier<HostSnapshot> host;
    private final PoolDevices pool;
    private final DeviceOwners owners;
    private final ClaimCdiSpecs specs;
    private final PreparedClaims prepared;

    /**
     * @param devicePluginHolder PCI address to the device-plugin resource that holds it now, if any (the layer's
     *                           allocation ledger)
     */
    ClaimPreparer(String driverName, ClaimReader reader, Supplier<HostSnapshot> host,
                  Function<String, Optional<String>> devicePluginHolder, ClaimCdiSpecs specs,
                  PreparedClaims prepared) {
        this(driverName, reader, host, PoolDevices.all(), DeviceOwners.checking(devicePluginHolder), specs, prepared);
    }

    ClaimPreparer(String driverName, ClaimReader reader, Supplier<HostSnapshot> host, PoolDevices pool,
                  Function<String, Optional<String>> devicePluginHolder, ClaimCdiSpecs specs,
                  PreparedClaims prepared) {
        this(driverName, reader, host, pool, DeviceOwners.checking(devicePluginHolder), specs, prepared);
    }

    /** @param owners the device-plugin pools, where a claim's devices are held while it is prepared */
    ClaimPreparer(String driverName, ClaimReader reader, Supplier<HostSnapshot> host, PoolDevices pool,
                  DeviceOwners owners, ClaimCdiSpecs specs, PreparedClaims prepared) {
        this.pool = pool;
        this.driverName = driverName;
        this.reader = reader;
        this.host = host;
        this.owners = owners;
        this.specs = specs;
        this.prepared = prepared;
    }

    /**
     * Reads the claim from the API server outside both locks (this object's and the checkpoint's file lock, which
     * the other instance of a handover takes too): a slow or hanging API server used to hold every other claim's
     * Prepare and Unprepare, and the other instance's, for as long as the read took. The placement that follows
     * (owners, CDI spec, checkpoint) runs under them, and first looks again whether the claim was prepared
     * meanwhile (kubelet repeats a Prepare it gave up on).
     */
    @Override
    public PrepareOutcome prepare(ClaimRef claim) {
        try {
            Optional<List<PreparedDevice>> known = alreadyPrepared(claim);
            if (known.isPresent()) {
                return PrepareOutcome.prepared(known.get());
            }
            return PrepareOutcome.prepared(place(claim, read(claim)));
        } catch (Refused e) {
            LOG.warn("cannot prepare claim {}: {}", claim, e.getMessage());
            return PrepareOutcome.failed(e.reason, e.getMessage());
        } catch (IOException e) {
            LOG.warn("cannot prepare claim {}: {}", claim, e.getMessage());
            return PrepareOutcome.failed(RefusalReason.WRITE_FAILED, "cannot prepare claim " + claim + ": the prepared-claims checkpoint: "
                    + e.getMessage());
        }
    }

    /** The claim's devices when it is prepared already, with its CDI spec on disk. */
    private synchronized Optional<List<PreparedDevice>> alreadyPrepared(ClaimRef claim) throws IOException {
        try (PreparedClaims.Lock ignored = prepared.lock()) {
            return prepared(claim);
        }
    }

    private Optional<List<PreparedDevice>> prepared(ClaimRef claim) {
        Optional<PreparedClaims.Prepared> known = prepared.get(claim.uid());
        return known.isPresent() && specs.exists(claim.uid()) ? Optional.of(known.get().devices()) : Optional.empty();
    }

    private AllocatedClaim read(ClaimRef claim) throws Refused {
        try {
            return reader.read(claim.namespace(), claim.name()).orElseThrow(() -> new Refused(RefusalReason.CLAIM_NOT_FOUND, "claim "
                    + claim.namespace() + "/" + claim.name() + " not found in the API server"));
        } catch (ClaimReadException e) {
            throw new Refused(RefusalReason.API_ERROR, "cannot read claim " + claim.namespace() + "/" + claim.name() + ": " + e.getMessage());
        }
    }

    private synchronized List<PreparedDevice> place(ClaimRef claim, AllocatedClaim read) throws Refused, IOException {
        try (PreparedClaims.Lock ignored = prepared.lock()) {
            Optional<List<PreparedDevice>> meanwhile = prepared(claim);
            return meanwhile.isPresent() ? meanwhile.get() : placeNew(claim, read);
        }
    }

    private List<PreparedDevice> placeNew(ClaimRef claim, AllocatedClaim read) throws Refused {
        if (!read.uid().equals(claim.uid())) {
            throw new Refused(RefusalReason.UID_MISMATCH, "claim " + claim.namespace() + "/" + claim.name() + " has uid " + read.uid()
                    + ", kubelet asked for " + claim.uid() + " (the claim was deleted and created again)");
        }
        List<Result> ours = read.results().stream().filter(r -> r.driver().equals(driverName)).toList();
        if (ours.isEmpty()) {
            throw new Refused(RefusalReason.NOT_ALLOCATED_HERE, "claim " + claim + " has no allocation result for driver " + driverName);
        }
        // One device may serve several requests of the claim: one entry per device, requests merged.
        Map<String, List<String>> requestsByDevice = new LinkedHashMap<>();
        Map<String, String> poolByDevice = new LinkedHashMap<>();
        for (Result r : ours) {
            requestsByDevice.computeIfAbsent(r.device(), d -> new ArrayList<>()).add(r.request());
            poolByDevice.putIfAbsent(r.device(), r.pool());
        }
        Map<String, Map<String, NodeDevice>> pools;
        try {
            pools = pool.byPool(host.get());
        } catch (IllegalStateException e) {
            throw new Refused(RefusalReason.DEVICE_GONE, "cannot tell the devices of the pools: " + e.getMessage());
        }
        Map<String, NodeDevice> present = new LinkedHashMap<>();
        Map<String, String> poolOfDevice = new LinkedHashMap<>();
        pools.forEach((poolName, inPool) -> inPool.forEach((name, d) -> {
            present.put(name, d);
            poolOfDevice.put(name, poolName);
        }));
        List<NodeDevice> devices = new ArrayList<>();
        for (String name : requestsByDevice.keySet()) {
            NodeDevice d = present.get(name);
            if (d == null) {
                throw new Refused(RefusalReason.DEVICE_GONE, "device " + name + " (pool " + poolByDevice.get(name) + ") of claim " + claim
                        + " is no longer present on this node (or no longer selected by the pool)");
            }
            String in = poolOfDevice.get(name);
            if (!in.isEmpty() && !in.equals(poolByDevice.get(name))) {
                throw new Refused(RefusalReason.DEVICE_GONE, "device " + name + " of claim " + claim + " was allocated from pool "
                        + poolByDevice.get(name) + ", but on this node it is in pool " + in + " (the pools changed"
                        + " since the allocation, or the allocation is not this node's)");
            }
            Optional<String> problem = d.problem();
            if (problem.isPresent()) {
                throw new Refused(RefusalReason.DEVICE_UNUSABLE, "device " + name + " (" + d.rdma().name() + ") of claim " + claim
                        + " cannot be used: " + problem.get());
            }
            String pci = d.address().toString();
            Optional<PreparedClaims.Prepared> other = prepared.holderOf(pci, claim.uid());
            if (other.isPresent()) {
                throw new Refused(RefusalReason.DEVICE_HELD, "device " + name + " (" + pci + ") of claim " + claim + " is prepared for claim "
                        + other.get().namespace() + "/" + other.get().name() + " (uid " + other.get().uid() + ")");
            }
            devices.add(d);
        }
        List<String> pcis = devices.stream().map(d -> d.address().toString()).toList();
        Map<String, String> conflicts = owners.hold(pcis);
        if (!conflicts.isEmpty()) {
            String pci = conflicts.keySet().iterator().next();
            String name = devices.stream().filter(d -> d.address().toString().equals(pci)).findFirst()
                    .map(NodeDevice::name).orElse(pci);
            throw new Refused(RefusalReason.DEVICE_HELD, "device " + name + " (" + pci + ") of claim " + claim + " is held by a pod through"
                    + " the device-plugin resource " + conflicts.get(pci) + ": a device has one owner on the node");
        }
        List<String> ids;
        try {
            ids = specs.write(claim.uid(), devices);
        } catch (IOException e) {
            owners.release(pcis);
            throw new Refused(RefusalReason.WRITE_FAILED, "cannot write the CDI spec " + specs.file(claim.uid()) + ": " + e.getMessage());
        }
        List<PreparedDevice> out = new ArrayList<>();
        for (int i = 0; i < devices.size(); i++) {
            NodeDevice d = devices.get(i);
            out.add(new PreparedDevice(requestsByDevice.get(d.name()), poolByDevice.get(d.name()), d.name(),
                    List.of(ids.get(i)), d.address().toString(), d.rdma().name()));
        }
        try {
            prepared.put(new PreparedClaims.Prepared(claim.namespace(), claim.name(), claim.uid(), out, read.podUids()));
        } catch (IOException e) {
            deleteQuietly(claim.uid());
            owners.release(pcis);
            throw new Refused(RefusalReason.WRITE_FAILED, "cannot checkpoint claim " + claim + ": " + e.getMessage());
        }
        LOG.info("prepared claim {}: {}", claim, out.stream().map(d -> d.device() + " (" + d.rdmaDevice() + ")")
                .toList());
        return out;
    }

    @Override
    public synchronized Optional<String> unprepare(ClaimRef claim) {
        try (PreparedClaims.Lock ignored = prepared.lock()) {
            List<String> pcis = prepared.get(claim.uid()).map(p -> p.devices().stream()
                    .map(PreparedDevice::pciAddress).toList()).orElse(List.of());
            specs.delete(claim.uid());
            prepared.remove(claim.uid());
            owners.release(pcis);
            return Optional.empty();
        } catch (IOException e) {
            LOG.warn("cannot unprepare claim {}: {}", claim, e.getMessage());
            return Optional.of("cannot unprepare claim " + claim + ": " + e.getMessage());
        }
    }

    /**
     * Holds the devices of every prepared claim with the device-plugin pools (a start, or the layer came back): a
     * conflict, a pod that got one of them through a pool meanwhile, is logged; the claim stays prepared.
     */
    synchronized void holdPrepared() {
        try (PreparedClaims.Lock ignored = prepared.lock()) {
            for (PreparedClaims.Prepared p : prepared.all()) {
                List<String> pcis = p.devices().stream().map(PreparedDevice::pciAddress).toList();
                Map<String, String> conflicts = owners.hold(pcis);
                if (!conflicts.isEmpty()) {
                    LOG.error("prepared claim {}/{} ({}): device(s) {} are also held by pods through device-plugin"
                            + " resources {}", p.namespace(), p.name(), p.uid(), conflicts.keySet(), conflicts.values());
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot read the prepared-claims checkpoint to hold its devices: {}", e.getMessage());
        }
    }

    /**
     * The PCI addresses prepared for pod {@code podUid} (its claims' {@code reservedFor}), read under the lock: the
     * other instance of a handover may have prepared them.
     */
    synchronized List<String> devicesOfPod(String podUid) {
        try (PreparedClaims.Lock ignored = prepared.lock()) {
            return prepared.devicesOfPod(podUid);
        } catch (IOException e) {
            LOG.warn("cannot read the prepared-claims checkpoint for pod {}: {}", podUid, e.getMessage());
            return List.of();
        }
    }

    /** The prepared claims, for {@code /status}. */
    synchronized List<PreparedClaims.Prepared> preparedClaims() {
        return prepared.all();
    }

    private void deleteQuietly(String uid) {
        try {
            specs.delete(uid);
        } catch (IOException e) {
            LOG.warn("cannot delete the CDI spec of claim {}: {}", uid, e.getMessage());
        }
    }

    /** A per-claim refusal, its message the claim's error for kubelet. */
    private static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        final RefusalReason reason;

        Refused(RefusalReason reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }
    }
}
