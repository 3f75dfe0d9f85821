// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.util.Collection;
import java.util.Optional;

/** "Did you mean" for misspelt keys: the closest known name by edit distance, if it is close enough. */
final class Suggestions {

    private Suggestions() {
    }

    static Optional<String> nearest(String typed, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            String a = typed.toLowerCase();
            String b = candidate.toLowerCase();
            // A key with a word too many or too few (stateDirectory, stateDir) is as good as a one-letter typo.
            int distance = a.startsWith(b) || b.startsWith(a) ? 1 : distance(a, b);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        // Within a third of the word (at least 2 edits): close enough to be a typo, not a different key.
        return best != null && bestDistance <= Math.max(2, typed.length() / 3) ? Optional.of(best) : Optional.empty();
    }

    static String didYouMean(String typed, Collection<String> known) {
        return nearest(typed, known).map(s -> " (did you mean " + s + "?)").orElse("");
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
