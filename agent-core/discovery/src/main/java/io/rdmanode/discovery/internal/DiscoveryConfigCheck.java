// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import io.rdmanode.agent.ConfigValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.osgi.annotation.bundle.Header;

/**
 * Discovery's own check of {@code discovery { ... }} beyond MetaType's types, options and ranges: the roots are
 * absolute directories and the rescan period is 0 (off) or long enough not to turn into a busy loop.
 * {@link DiscoveryComponent} runs the same check on activation ({@link #require}).
 */
@Header(name = ConfigValidator.HEADER, value = "${@class}")
public final class DiscoveryConfigCheck implements ConfigValidator {

    /** The shortest safety-net rescan; every scan reads the whole tree. */
    static final long MIN_RESCAN_MS = 1000;

    @Override
    public List<Refusal> validate(Proposal proposal) {
        Map<String, Object> p = proposal.configurations().get(DiscoveryComponent.PID);
        if (p == null) {
            return List.of();
        }
        List<Refusal> refusals = new ArrayList<>();
        for (String key : List.of("sysfsRoot", "devRoot")) {
            if (p.get(key) instanceof String value && rootProblem(value) != null) {
                refusals.add(new Refusal(DiscoveryComponent.PID, key, rootProblem(value)));
            }
        }
        if (p.get("rescanInterval") instanceof Number value && rescanProblem(value.longValue()) != null) {
            refusals.add(new Refusal(DiscoveryComponent.PID, "rescanInterval", rescanProblem(value.longValue())));
        }
        return refusals;
    }

    /** Throws what {@link #validate} would refuse in {@code config}: the component's activation check. */
    static void require(DiscoveryComponent.Config config) {
        List<String> problems = new ArrayList<>();
        String sysfs = rootProblem(config.sysfsRoot());
        String dev = rootProblem(config.devRoot());
        String rescan = rescanProblem(config.rescanInterval());
        if (sysfs != null) {
            problems.add("sysfsRoot: " + sysfs);
        }
        if (dev != null) {
            problems.add("devRoot: " + dev);
        }
        if (rescan != null) {
            problems.add("rescanInterval: " + rescan);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("discovery: " + String.join("; ", problems));
        }
    }

    static String rootProblem(String root) {
        if (root.isBlank()) {
            return "empty; an absolute directory is expected (/sys, /dev, or an unpacked recording)";
        }
        if (!root.startsWith("/")) {
            return "'" + root + "' is relative; an absolute directory (starting with /) is expected";
        }
        if (root.indexOf('\0') >= 0 || List.of(root.split("/")).contains("..")) {
            return "'" + root + "' contains '..' or a NUL; an absolute directory without them is expected";
        }
        return null;
    }

    static String rescanProblem(long millis) {
        return millis == 0 || millis >= MIN_RESCAN_MS ? null : millis + " ms is less than the minimum "
                + MIN_RESCAN_MS + " ms (1s) for a full rescan; 0 turns it off";
    }
}
