// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One {@code pfNames} or {@code rootDevices} entry: a PF (netdev name or PCI address) and optionally which of
 * its VFs, {@code <pf>#<i>,<a>-<b>,...} (0-based VF indexes, ranges inclusive), as the SR-IOV peer writes it.
 * Without {@code #} every VF of the PF matches (and the PF itself, when the candidate is the PF). The PF part is
 * compared case-insensitively.
 *
 * @param pf     lower-cased PF netdev name or PCI address
 * @param ranges empty means every VF
 * @since 1.0
 */
public record PfSelector(String pf, List<VfRange> ranges) {

    /** VF indexes {@code first..last}, inclusive. */
    public record VfRange(int first, int last) {
        public VfRange {
            if (first < 0 || last < first) {
                throw new IllegalArgumentException("VF range " + first + "-" + last
                        + " must be ascending and not negative");
            }
        }

        public boolean contains(int index) {
            return index >= first && index <= last;
        }

        @Override
        public String toString() {
            return first == last ? Integer.toString(first) : first + "-" + last;
        }
    }

    public PfSelector {
        Objects.requireNonNull(pf, "pf");
        if (pf.isBlank()) {
            throw new IllegalArgumentException("PF selector has an empty PF name");
        }
        pf = pf.toLowerCase(Locale.ROOT);
        ranges = List.copyOf(ranges);
    }

    /**
     * Parses {@code ens1f0}, {@code ens1f0#0-3}, {@code 0000:3b:00.0#1,3-5}.
     *
     * @throws IllegalArgumentException naming the entry and what is wrong with it
     */
    public static PfSelector parse(String text) {
        String t = text.trim();
        int hash = t.indexOf('#');
        if (hash < 0) {
            return new PfSelector(t, List.of());
        }
        String pf = t.substring(0, hash);
        String spec = t.substring(hash + 1);
        if (pf.isBlank() || spec.isBlank()) {
            throw new IllegalArgumentException("'" + text + "': expected <pf>#<vf>[-<vf>][,...]");
        }
        List<VfRange> ranges = new ArrayList<>();
        for (String part : spec.split(",", -1)) {
            String p = part.trim();
            try {
                int dash = p.indexOf('-');
                if (dash < 0) {
                    int i = Integer.parseInt(p);
                    ranges.add(new VfRange(i, i));
                } else {
                    ranges.add(new VfRange(Integer.parseInt(p.substring(0, dash).trim()),
                            Integer.parseInt(p.substring(dash + 1).trim())));
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "': VF range '" + p + "' is not <n> or <n>-<m>");
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + text + "': " + e.getMessage());
            }
        }
        return new PfSelector(pf, ranges);
    }

    /** Whether VF {@code index} of this PF is selected. */
    public boolean includesVf(int index) {
        return ranges.isEmpty() || ranges.stream().anyMatch(r -> r.contains(index));
    }

    @Override
    public String toString() {
        return ranges.isEmpty() ? pf : pf + "#" + String.join(",", ranges.stream().map(VfRange::toString).toList());
    }
}
