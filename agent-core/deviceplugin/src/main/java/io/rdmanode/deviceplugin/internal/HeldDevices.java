// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The allocation ledger kept true: Allocate records into it, and it is reconciled with what kubelet says running
 * containers hold (PodResources, or kubelet's checkpoint) at start, before every pool set change is published,
 * and every {@link Layer#RECONCILE_SECONDS} s. Thread-safe.
 */
final class HeldDevices {

    private static final Logger LOG = LoggerFactory.getLogger(HeldDevices.class);

    /** What running containers hold, from kubelet; throws when kubelet cannot be asked. */
    @FunctionalInterface
    interface Kubelet {
        /** The holdings and where they come from (for logs and {@code /status}). */
        Answer running();

        record Answer(List<AllocationLedger.Holding> holdings, String source) { }

        /** No kubelet to ask: the ledger keeps what Allocate recorded. */
        Kubelet NONE = () -> {
            throw new IllegalStateException("no kubelet PodResources source");
        };
    }

    private final AllocationLedger ledger;
    private final Kubelet kubelet;
    private final java.util.function.BooleanSupplier handedOver;
    /** The served pools' claims by resource name: what each shared pool gives its containers. */
    private volatile java.util.function.Supplier<Map<String, io.rdmanode.deviceplugin.Ownership.Claim>> claims =
            Map::of;
    private volatile String lastSource = "";
    private volatile String lastProblem = "";
    private volatile Instant lastReconciled;
    private volatile long released;
    private volatile boolean refusedRemovals;

    HeldDevices(AllocationLedger ledger, Kubelet kubelet) {
        this(ledger, kubelet, () -> false);
    }

    /**
     * @param handedOver true while this process may not remove files: before it is the state directory's writer,
     *                   and once a successor owns the state directory
     */
    HeldDevices(AllocationLedger ledger, Kubelet kubelet, java.util.function.BooleanSupplier handedOver) {
        this.ledger = ledger;
        this.kubelet = kubelet;
        this.handedOver = handedOver;
    }

    /** Where the served pools' claims are read (the layer's live ownership table). */
    void claimsFrom(java.util.function.Supplier<Map<String, io.rdmanode.deviceplugin.Ownership.Claim>> source) {
        claims = source;
    }

    /** What outside holders hold now: PCI address to holder. */
    Map<String, String> outside() {
        return outside;
    }

    /** Whether kubelet has answered in this process: only then may what nobody holds be removed. */
    boolean known() {
        return lastReconciled != null;
    }

    /**
     * Whether this process may remove a file of a released device: not before it is the state directory's writer
     * and not once a successor owns the files. A refusal is remembered, so that the next reconciliation after the
     * refusal ends brings the files in line ({@link #takeRefusedRemovals}).
     */
    boolean mayRemoveFiles() {
        boolean may = !handedOver.getAsBoolean();
        if (!may) {
            refusedRemovals = true;
        }
        return may;
    }

    /** Whether a removal was refused since the last call, now that removals are allowed; clears the mark. */
    boolean takeRefusedRemovals() {
        if (!refusedRemovals || handedOver.getAsBoolean()) {
            return false;
        }
        refusedRemovals = false;
        return true;
    }

    /** Devices owners outside the device-plugin pools hold (a DRA driver's prepared claims): ID to holder. */
    private volatile Map<String, String> outside = Map.of();
    private volatile Merged merged;

    private record Merged(Map<String, String> ledger, Map<String, String> outside, Map<String, String> all) {
    }

    /**
     * Device ID to what holds it now: the extended resource a container holds it under (the ledger), or an owner
     * outside the device-plugin pools ({@link #holdOutside}), named {@code "<holder> (outside the device-plugin
     * pools)"}. Lock-free; rebuilt only when either side changed.
     */
    Map<String, String> heldBy() {
        Map<String, String> l = ledger.heldBy();
        Map<String, String> o = outside;
        if (o.isEmpty() || l.isEmpty() && l.containsKey("")) {
            return l;                                    // nothing outside, or nothing known (every ID unknown)
        }
        Merged m = merged;
        if (m != null && m.ledger() == l && m.outside() == o) {
            return m.all();
        }
        Map<String, String> all = new java.util.LinkedHashMap<>(l);
        o.forEach(all::putIfAbsent);
        Map<String, String> view = java.util.Collections.unmodifiableMap(all);
        merged = new Merged(l, o, view);
        return view;
    }

    /**
     * Holds {@code ids} for {@code holder}, all or none: when a container holds one of them under an extended
     * resource (the ledger), or another outside holder does, nothing changes and the conflicts are returned (ID to
     * what holds it). Atomic with {@link #allocated}, so a VF is never handed out on both sides.
     */
    synchronized Map<String, String> holdOutside(String holder, Collection<String> ids) {
        Map<String, String> l = ledger.heldBy();
        Map<String, String> conflicts = new java.util.LinkedHashMap<>();
        Map<String, String> shared = sharedInUse(l);
        for (String id : ids) {
            String byLedger = l.get(id);
            String byOutside = outside.get(id);
            if (byLedger != null) {
                conflicts.put(id, byLedger);
            } else if (shared.containsKey(id)) {
                conflicts.put(id, shared.get(id));
            } else if (byOutside != null && !byOutside.equals(outsideName(holder))) {
                conflicts.put(id, byOutside);
            }
        }
        if (conflicts.isEmpty() && !ids.isEmpty()) {
            Map<String, String> next = new java.util.HashMap<>(outside);
            ids.forEach(id -> next.put(id, outsideName(holder)));
            outside = Map.copyOf(next);
        }
        return conflicts;
    }

    /** Releases what {@code holder} held of {@code ids} (all of it when {@code ids} is null). */
    synchronized void releaseOutside(String holder, Collection<String> ids) {
        String name = outsideName(holder);
        Map<String, String> next = new java.util.HashMap<>(outside);
        next.entrySet().removeIf(e -> e.getValue().equals(name) && (ids == null || ids.contains(e.getKey())));
        if (next.size() != outside.size()) {
            outside = Map.copyOf(next);
        }
    }

    /**
     * The HCAs of shared pools some container holds an ID of: a shared pool gives each container every HCA it
     * matched, so all of them are in use while any of its IDs is held. PCI address to a description.
     */
    private Map<String, String> sharedInUse(Map<String, String> ledgerHeld) {
        Map<String, io.rdmanode.deviceplugin.Ownership.Claim> all = claims.get();
        if (all.isEmpty() || ledgerHeld.isEmpty()) {
            return Map.of();
        }
        java.util.Set<String> inUse = new java.util.HashSet<>(ledgerHeld.values());
        Map<String, String> shared = new java.util.HashMap<>();
        for (io.rdmanode.deviceplugin.Ownership.Claim c : all.values()) {
            if (!c.exclusive() && inUse.contains(c.configuration())) {
                c.devices().forEach(d -> shared.putIfAbsent(d, c.configuration() + " (shared pool " + c.pool()
                        + ", held by running containers)"));
            }
        }
        return shared;
    }

    static String outsideName(String holder) {
        return holder + " (outside the device-plugin pools)";
    }

    /**
     * Records an Allocate; returns the IDs newly recorded. A ledger that cannot be written is logged, not fatal.
     *
     * <p>After the handover an Allocate can still reach this instance: kubelet sent it before it switched the
     * resource to the successor's socket. Refusing it would fail the pod for good (kubelet does not retry
     * Allocate), and kubelet chose the IDs from its own book for this resource, so it is served from this
     * instance's view and recorded in memory only: the file is the successor's, which learns the holding from
     * kubelet's PodResources at its next reconciliation (kubelet lists an allocation once Allocate returned).
     *
     * <p>Recorded under this object's lock (atomic with {@link #holdOutside}); the wait for the ledger's write is
     * outside it, so that concurrent Allocates share one write (the ledger's group commit).
     */
    List<String> allocated(String resource, Collection<String> deviceIds) {
        if (outside.isEmpty() && ledger.held(resource, deviceIds)) {
            // Held under this resource and on disk already, nothing outside the pools: nothing to record or wait
            // for, so no turn on this object's lock or the ledger's (holdOutside refuses an ID the ledger holds).
            return List.of();
        }
        AllocationLedger.Recorded recorded = record(resource, deviceIds);
        try {
            ledger.awaitWritten(recorded);
            return recorded.ids();
        } catch (UncheckedIOException e) {
            LOG.warn("{}: kubelet's PodResources stays the truth after a restart", e.getMessage());
            return List.copyOf(deviceIds);
        }
    }

    private synchronized AllocationLedger.Recorded record(String resource, Collection<String> deviceIds) {
        List<String> outsideHeld = deviceIds.stream().filter(outside::containsKey).toList();
        if (!outsideHeld.isEmpty()) {
            throw new io.rdmanode.kubelet.DevicePluginException(io.rdmanode.kubelet.DevicePluginException.Code.UNAVAILABLE,
                    resource, "device(s) " + outsideHeld + " are held by " + outsideHeld.stream().map(outside::get)
                    .distinct().toList() + ": a device has one owner on the node");
        }
        if (!outside.isEmpty()) {
            io.rdmanode.deviceplugin.Ownership.Claim claim = claims.get().get(resource);
            if (claim != null && !claim.exclusive()) {
                // The shared pool's last view still gives an HCA an outside holder took since: its next view
                // (computed at once after the hold) leaves it out; this one Allocate would hand it to a second owner.
                List<String> taken = claim.devices().stream().filter(outside::containsKey).sorted().toList();
                if (!taken.isEmpty()) {
                    throw new io.rdmanode.kubelet.DevicePluginException(
                            io.rdmanode.kubelet.DevicePluginException.Code.UNAVAILABLE, resource, "HCA(s) " + taken
                            + " of this shared pool were just taken by " + taken.stream().map(outside::get).distinct()
                            .toList() + ": a device has one owner on the node");
                }
            }
        }
        if (!ledger.writing()) {
            LOG.info("Allocate after the handover resource={} ids={}: served, recorded in memory only (the ledger"
                    + " file is the successor's; it learns the holding from kubelet)", resource,
                    io.rdmanode.agent.LogText.escape(deviceIds.toString()));
        }
        return ledger.record(resource, deviceIds);
    }

    void forget(String resource, Collection<String> deviceIds) {
        try {
            ledger.forget(resource, deviceIds);
        } catch (UncheckedIOException e) {
            LOG.warn(e.getMessage());
        }
    }

    /** This instance handed the state directory over: the ledger file is the successor's from now on. */
    void handedOver() {
        ledger.stopWriting();
    }

    /** Merges what another instance (the predecessor) wrote to the ledger file since this one last saw it. */
    boolean adoptWrittenElsewhere() {
        return ledger.mergeWrittenElsewhere();
    }

    /**
     * Asks kubelet and reconciles the ledger with its answer.
     *
     * @return true when the ledger changed (pools must look again)
     */
    boolean reconcile(String why) {
        Kubelet.Answer answer;
        try {
            answer = kubelet.running();
        } catch (IllegalStateException notYet) {
            LOG.debug("allocation ledger not reconciled ({}): {}", why, notYet.getMessage());
            return false;
        } catch (RuntimeException e) {
            if (!String.valueOf(e.getMessage()).equals(lastProblem)) {
                LOG.warn("allocation ledger not reconciled ({}): {}; it keeps what Allocate recorded", why,
                        e.getMessage());
            }
            lastProblem = String.valueOf(e.getMessage());
            return false;
        }
        lastProblem = "";
        lastSource = answer.source();
        lastReconciled = Instant.now();
        AllocationLedger.Change change;
        try {
            change = ledger.reconcile(answer.holdings());
        } catch (UncheckedIOException e) {
            LOG.warn("{} ({})", e.getMessage(), why);
            return true;                                  // reconciled in memory all the same
        }
        change.released().forEach(e -> LOG.info("device released resource={} device={} holder={}: kubelet lists no"
                + " running container holding it", e.resource(), e.deviceId(), e.holder()));
        change.added().forEach(e -> LOG.info("device held resource={} device={} holder={} (from {})",
                e.resource(), e.deviceId(), e.holder(), answer.source()));
        released += change.released().size();
        return change.any();
    }

    /** For {@code /status}: every held device with its resource, holder and since when. */
    Map<String, Object> status() {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("devices", ledger.entries().stream().map(e -> Map.of("resource", e.resource(), "device",
                e.deviceId(), "holder", e.holder(), "since", Instant.ofEpochMilli(e.sinceMillis()).toString()))
                .toList());
        m.put("source", lastSource);
        m.put("reconciledAt", lastReconciled == null ? "" : lastReconciled.toString());
        m.put("released", released);
        String problem = lastProblem.isEmpty() ? ledger.problem() : lastProblem;
        if (!problem.isEmpty()) {
            m.put("problem", problem);
        }
        return m;
    }

    int size() {
        return ledger.heldBy().size();
    }

    List<HeldFigures.Held> entries() {
        return ledger.entries().stream().map(e -> new HeldFigures.Held(e.resource(), e.deviceId(), e.holder()))
                .toList();
    }

    long released() {
        return released;
    }
}
