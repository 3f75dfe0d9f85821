// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.math.BigInteger;

/**
 * The bound a MetaType range check refused a value against. The MetaType API does not expose an attribute's min
 * and max, and Felix's answer is only "greater than maximum"; the definition's own {@code validate} is a pure
 * function, so the bound is found by asking it (exponential then binary search: at most ~200 calls), and the
 * message names it: {@code greater than the maximum 65535}.
 */
final class Limits {

    private Limits() {
    }

    /** @param above true when the value was refused as above the maximum, false as below the minimum */
    static String describe(AttributeSchema schema, String rejected, boolean above) {
        String which = above ? "greater than the maximum" : "less than the minimum";
        if (schema.type() == AttributeType.STRING || schema.type() == AttributeType.PASSWORD) {
            long bound = bound(n -> classify(schema, "x".repeat((int) n)), rejected.length(), above, 0,
                    1 << 20);
            return bound < 0 ? "length " + rejected.length() + " is " + which + " length"
                    : "length " + rejected.length() + " is " + which + " length " + bound;
        }
        if (schema.type() == AttributeType.DOUBLE || schema.type() == AttributeType.FLOAT) {
            return which;
        }
        long value;
        try {
            value = Long.parseLong(rejected);
        } catch (NumberFormatException e) {
            return which;
        }
        long bound = bound(n -> classify(schema, Long.toString(n)), value, above, Long.MIN_VALUE / 4,
                Long.MAX_VALUE / 4);
        return bound == Long.MIN_VALUE ? which : which + " " + bound;
    }

    /** 0 accepted, 1 above the maximum, -1 below the minimum, 2 refused for another reason. */
    private static int classify(AttributeSchema schema, String value) {
        String why = schema.validate(value).orElse(null);
        if (why == null) {
            return 0;
        }
        return why.contains("greater than maximum") ? 1 : why.contains("less than minimum") ? -1 : 2;
    }

    private interface Side {
        int of(long n);
    }

    /**
     * The accepted value nearest to the refused {@code value}: the largest accepted below it (a maximum) or the
     * smallest above it (a minimum); {@code Long.MIN_VALUE} (or -1 for lengths) when none is found in range.
     * Steps away from the value, doubling, until a value is not on the refused side; a step that jumps past the
     * whole accepted range lands on the other side, and the accepted range is then searched between the two.
     */
    private static long bound(Side side, long value, boolean above, long floor, long ceiling) {
        long none = floor == 0 ? -1 : Long.MIN_VALUE;
        int refusedSide = above ? 1 : -1;
        long refused = value;
        long step = 1;
        long candidate = above ? value - 1 : value + 1;
        int at;
        while (true) {
            if (candidate < floor || candidate > ceiling) {
                return none;
            }
            at = side.of(candidate);
            if (at != refusedSide) {
                break;
            }
            refused = candidate;
            step = Math.min(step * 2, Long.MAX_VALUE / 8);
            candidate = above ? candidate - step : candidate + step;
        }
        long good;
        if (at == 0) {
            good = candidate;
        } else if (at == -refusedSide) {
            // Past the accepted range: look for an accepted value between the other side and the refused one.
            long other = candidate;
            Long found = null;
            while (Math.abs(refused - other) > 1) {
                long middle = other + (refused - other) / 2;
                int m = side.of(middle);
                if (m == 0) {
                    found = middle;
                    break;
                } else if (m == refusedSide) {
                    refused = middle;
                } else if (m == -refusedSide) {
                    other = middle;
                } else {
                    return none;
                }
            }
            if (found == null) {
                return none;
            }
            good = found;
        } else {
            return none;
        }
        while (Math.abs(refused - good) > 1) {
            long middle = good + (refused - good) / 2;
            if (side.of(middle) == 0) {
                good = middle;
            } else {
                refused = middle;
            }
        }
        return good;
    }
}
