// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The node's device ownership rule: every device the layer serves has exactly one owner. A pool is an
 * <em>exclusive</em> owner (an SR-IOV VF handed to one pod) or a <em>shared</em> one (an HCA every pod of the
 * pool uses). Two shared pools may name the same device; an exclusive pool may share a device with no other
 * pool. Devices are named by {@link #deviceId}: the PCI address, else the RDMA device name. Pure functions.
 *
 * @since 1.1
 */
public final class Ownership {

    private Ownership() {
    }

    /**
     * What one pool holds.
     *
     * @param configuration the pool's configuration ({@code factoryPid~name}, as a validator sees it)
     * @param pool          the pool's name, as the operator wrote it
     * @param exclusive     whether a device of the pool goes to one pod at a time
     * @param devices       {@link #deviceId device IDs}
     */
    public record Claim(String configuration, String pool, boolean exclusive, Set<String> devices) {
        public Claim {
            Objects.requireNonNull(configuration, "configuration");
            Objects.requireNonNull(pool, "pool");
            devices = Set.copyOf(devices);
        }
    }

    /** Two pools that would both own {@code devices}; at least one of them is exclusive. */
    public record Conflict(Claim first, Claim second, Set<String> devices) {
        public Conflict {
            devices = Set.copyOf(devices);
        }

        /** {@code pools sriov_a (exclusive) and hca_b (shared) would both own 0000:3b:00.2: ...}. */
        public String message() {
            return "pools " + describe(first) + " and " + describe(second) + " would both own "
                    + String.join(", ", new TreeSet<>(devices)) + ": a device has one owner on the node (an"
                    + " exclusive pool shares no device; narrow the selectors of one of them)";
        }

        private static String describe(Claim c) {
            return c.pool() + " (" + (c.exclusive() ? "exclusive" : "shared") + ")";
        }
    }

    /** Every pair of claims that break the rule, in the order given (first before second). */
    public static List<Conflict> conflicts(Collection<Claim> claims) {
        List<Claim> all = List.copyOf(claims);
        List<Conflict> out = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            for (int j = i + 1; j < all.size(); j++) {
                Claim a = all.get(i);
                Claim b = all.get(j);
                if (!a.exclusive() && !b.exclusive()) {
                    continue;
                }
                Set<String> both = new TreeSet<>(a.devices());
                both.retainAll(b.devices());
                if (!both.isEmpty()) {
                    out.add(new Conflict(a, b, both));
                }
            }
        }
        return out;
    }

    /** The device's name in the table: its PCI address, else the candidate key (a soft RDMA device's name). */
    public static String deviceId(CandidateDevice candidate) {
        return candidate.pci().map(p -> p.address().toString()).orElse(candidate.key());
    }
}
