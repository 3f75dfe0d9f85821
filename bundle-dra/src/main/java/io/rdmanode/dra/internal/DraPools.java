// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.rdmanode.agent.SettingException;
import io.rdmanode.deviceplugin.Selectors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The driver's pools as configured: {@code pools = [ { name = ..., selectors { ... } }, ... ]}, which the config
 * bridge hands over as properties {@code pools.<i>.name} and {@code pools.<i>.selectors.<kind>} (the component
 * declares them as {@code pools.N.*}), or, without {@code pools}, the one pool of {@code pool} (empty: the node
 * name) and {@code selectors.*}, as before there were several.
 */
final class DraPools {

    static final List<String> SELECTOR_KINDS = List.of("vendors", "devices", "drivers", "pciAddresses", "ifNames",
            "pfNames", "rootDevices", "linkTypes");
    private static final Pattern POOL_KEY = Pattern.compile("pools\\.(\\d+)\\.(.+)");

    private DraPools() {
    }

    /** The list positions of {@code pools} entries, in list order; empty without {@code pools}. */
    static SortedSet<Integer> indexes(Map<String, ?> p) {
        SortedSet<Integer> out = new TreeSet<>();
        for (String key : p.keySet()) {
            Matcher m = POOL_KEY.matcher(key);
            if (m.matches() && !m.group(1).equals("N") && m.group(1).length() < 6) {
                out.add(Integer.parseInt(m.group(1)));
            }
        }
        return out;
    }

    /** The property key prefix of entry {@code i}: {@code pools.<i>.}. */
    static String prefix(int i) {
        return "pools." + i + ".";
    }

    /**
     * The pools in configured order.
     *
     * @throws SettingException at the property a selector refuses (the caller has checked the rest with
     *                          {@link DraConfigCheck})
     */
    static List<PoolDevices.Pool> of(Map<String, ?> p, String nodeName) {
        SortedSet<Integer> indexes = indexes(p);
        if (indexes.isEmpty()) {
            String pool = string(p, "pool");
            return List.of(new PoolDevices.Pool(pool.isBlank() ? nodeName : pool, selectors(p, "selectors.")));
        }
        List<PoolDevices.Pool> out = new ArrayList<>();
        for (int i : indexes) {
            out.add(new PoolDevices.Pool(string(p, prefix(i) + "name"), selectors(p, prefix(i) + "selectors.")));
        }
        return out;
    }

    /**
     * The selectors under {@code prefix} ({@code selectors.} or {@code pools.<i>.selectors.}), parsed by the
     * device-plugin layer's rules.
     *
     * @throws SettingException with the full property key ({@code pools.1.selectors.pfNames})
     */
    static Selectors selectors(Map<String, ?> p, String prefix) {
        try {
            return new Selectors(list(p, prefix + "vendors"), list(p, prefix + "devices"),
                    list(p, prefix + "drivers"), list(p, prefix + "pciAddresses"), list(p, prefix + "ifNames"),
                    Selectors.pfSelectors("pfNames", list(p, prefix + "pfNames")),
                    Selectors.pfSelectors("rootDevices", list(p, prefix + "rootDevices")),
                    list(p, prefix + "linkTypes"), Optional.empty());
        } catch (SettingException e) {
            String property = e.property().startsWith("selectors.") ? e.property().substring("selectors.".length())
                    : e.property();
            throw new SettingException(property.isEmpty() ? prefix.substring(0, prefix.length() - 1)
                    : prefix + property, e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new SettingException(prefix.substring(0, prefix.length() - 1), e.getMessage(), e);
        }
    }

    /** Whether any {@code <prefix><kind>} has an entry. */
    static boolean hasSelectors(Map<String, ?> p, String prefix) {
        return SELECTOR_KINDS.stream().anyMatch(kind -> !list(p, prefix + kind).isEmpty());
    }

    static String string(Map<String, ?> p, String key) {
        Object v = p.get(key);
        return v == null ? "" : v.toString();
    }

    static List<String> list(Map<String, ?> p, String key) {
        Object v = p.get(key);
        if (v instanceof String[] a) {
            return List.of(a);
        }
        if (v instanceof Collection<?> c) {
            return c.stream().map(Object::toString).toList();
        }
        return v == null ? List.of() : List.of(v.toString());
    }
}
