// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.math.BigInteger;

/**
 * The bound a MetaType range check refused a value against. The MetaType API does not expose an attribute's min
 * and max, and Felix's answer is only "greater than maximum"; the definition's own {@code validate} is a pure
 * function, so the bound is found by asking it (exponential then binary search: at most ~130 calls), and the
 * message names it: {@code greater than the maximum 65535}.
 */
final class Limits {

    private Limits() {
    }

    /** @param above true when the value was refused as above the maximum, false as below the minimum */
    static String describe(AttributeSchema schema, String rejected, boolean above) {
        String which = above ? "greater than the maximum" : "less than the minimum";
        if (schema.type() == AttributeType.STRING || schema.type() == AttributeType.PASSWORD) {
            long bound = bound(n -> accepted(schema, "x".repeat((int) n)), rejected.length(), above, 0,
                    Integer.MAX_VALUE / 2);
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
        long bound = bound(n -> accepted(schema, Long.toString(n)), value, above, Long.MIN_VALUE / 4,
                Long.MAX_VALUE / 4);
        return bound == Long.MIN_VALUE ? which : which + " " + bound;
    }

    private static boolean accepted(AttributeSchema schema, String value) {
        return schema.validate(value).isEmpty();
    }

    private interface Accepts {
        boolean test(long n);
    }

    /**
     * The accepted value nearest to the refused {@code value}: the largest accepted below it (a maximum) or the
     * smallest above it (a minimum); {@code Long.MIN_VALUE} (or -1 for lengths) when none is found in range.
     */
    private static long bound(Accepts accepts, long value, boolean above, long floor, long ceiling) {
        long step = 1;
        long refused = value;
        long candidate = above ? value - 1 : value + 1;
        while (candidate >= floor && candidate <= ceiling && !accepts.test(candidate)) {
            refused = candidate;
            step = BigInteger.valueOf(step).shiftLeft(1).min(BigInteger.valueOf(Long.MAX_VALUE / 8)).longValue();
            candidate = above ? candidate - step : candidate + step;
        }
        if (candidate < floor || candidate > ceiling) {
            return floor == 0 ? -1 : Long.MIN_VALUE;
        }
        long good = candidate;
        // Between good (accepted) and refused (refused): the boundary.
        while (Math.abs(refused - good) > 1) {
            long middle = good + (refused - good) / 2;
            if (accepts.test(middle)) {
                good = middle;
            } else {
                refused = middle;
            }
        }
        return good;
    }
}
