// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import io.rdmanode.agent.ConfigValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.osgi.annotation.bundle.Header;

/**
 * The metrics bundle's own check of {@code metrics { ... }}: the device filters are regular expressions, the path
 * one the HTTP endpoint can serve. {@link MetricsEndpoint} runs the same check on activation ({@link #require}).
 */
@Header(name = ConfigValidator.HEADER, value = "${@class}")
public final class MetricsConfigCheck implements ConfigValidator {

    /** Served by the health bundle itself. */
    private static final Set<String> TAKEN = Set.of("/", "/healthz", "/readyz", "/status");
    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

    @Override
    public List<Refusal> validate(Proposal proposal) {
        Map<String, Object> p = proposal.configurations().get(MetricsConfig.PID);
        if (p == null) {
            return List.of();
        }
        List<Refusal> refusals = new ArrayList<>();
        for (String key : List.of("path", "deviceInclude", "deviceExclude")) {
            if (p.get(key) instanceof String value) {
                String problem = problem(key, value);
                if (problem != null) {
                    refusals.add(new Refusal(MetricsConfig.PID, key, problem));
                }
            }
        }
        return refusals;
    }

    /** Throws what {@link #validate} would refuse in {@code config}: the components' activation check. */
    static void require(MetricsConfig config) {
        List<String> problems = new ArrayList<>();
        for (String[] entry : new String[][] {{"path", config.path()}, {"deviceInclude", config.deviceInclude()},
                {"deviceExclude", config.deviceExclude()}}) {
            String problem = problem(entry[0], entry[1]);
            if (problem != null) {
                problems.add(entry[0] + ": " + problem);
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("metrics: " + String.join("; ", problems));
        }
    }

    static String problem(String key, String value) {
        if (key.equals("path")) {
            if (TAKEN.contains(value)) {
                return "'" + value + "' is served by the agent itself (" + TAKEN + "); pick another, e.g. /metrics";
            }
            return PATH.matcher(value).matches() ? null : "'" + value + "' is not a URL path: '/' then segments of"
                    + " letters, digits, '.', '_', '~', '-' (e.g. /metrics)";
        }
        if (value.isEmpty()) {
            return null;
        }
        try {
            Pattern.compile(value);
            return null;
        } catch (PatternSyntaxException e) {
            return "'" + value + "' is not a regular expression (java.util.regex): " + e.getDescription()
                    + " near index " + e.getIndex() + "; e.g. mlx5_.* or (mlx5_0|mlx5_1), empty = "
                    + (key.equals("deviceInclude") ? "all devices" : "none excluded");
        }
    }
}
