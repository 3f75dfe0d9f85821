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

    /** Device ID to the extended resource it is held under now. */
    Map<String, String> heldBy() {
        return ledger.heldBy();
    }

    /**
     * Records an Allocate; returns the IDs newly recorded. A ledger that cannot be written is logged, not fatal.
     *
     * <p>After the handover an Allocate can still reach this instance: kubelet sent it before it switched the
     * resource to the successor's socket. Refusing it would fail the pod for good (kubelet does not retry
     * Allocate), and kubelet chose the IDs from its own book for this resource, so it is served from this
     * instance's view and recorded in memory only: the file is the successor's, which learns the holding from
     * kubelet's PodResources at its next reconciliation (kubelet lists an allocation once Allocate returned).
     */
    List<String> allocated(String resource, Collection<String> deviceIds) {
        if (!ledger.writing()) {
            LOG.info("Allocate after the handover resource={} ids={}: served, recorded in memory only (the ledger"
                    + " file is the successor's; it learns the holding from kubelet)", resource,
                    io.rdmanode.agent.LogText.escape(deviceIds.toString()));
        }
        try {
            return ledger.allocated(resource, deviceIds);
        } catch (UncheckedIOException e) {
            LOG.warn("{}: kubelet's PodResources stays the truth after a restart", e.getMessage());
            return List.copyOf(deviceIds);
        }
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
