// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent.testing;

import io.rdmanode.agent.ConfigValidator;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What validator tests hand a {@link ConfigValidator} (the configurations of a file, in the file's order, and
 * the services of the framework the check runs in: none for offline {@code check-config}) and read back.
 */
public final class Proposals {

    private Proposals() {
    }

    /** {@code configurations} ({@code pid} or {@code factoryPid~name} to properties), without services. */
    public static ConfigValidator.Proposal of(Map<String, Map<String, Object>> configurations) {
        return with(configurations, Map.of());
    }

    /** One configuration, without services. */
    public static ConfigValidator.Proposal of(String pid, Map<String, Object> properties) {
        return of(Map.of(pid, properties));
    }

    /** {@code configurations} with {@code services} (type to instance), as the running agent offers them. */
    public static ConfigValidator.Proposal with(Map<String, Map<String, Object>> configurations,
                                                Map<Class<?>, Object> services) {
        Map<String, Map<String, Object>> ordered = Collections.unmodifiableMap(new LinkedHashMap<>(configurations));
        return new ConfigValidator.Proposal() {
            @Override
            public Map<String, Map<String, Object>> configurations() {
                return ordered;
            }

            @Override
            public <T> Optional<T> service(Class<T> type) {
                return Optional.ofNullable(services.get(type)).map(type::cast);
            }
        };
    }

    /** The one refusal in {@code refusals}, which must be of {@code configuration}. */
    public static ConfigValidator.Refusal only(List<ConfigValidator.Refusal> refusals, String configuration) {
        if (refusals.size() != 1 || !refusals.get(0).configuration().equals(configuration)) {
            throw new AssertionError("expected one refusal of " + configuration + ", got " + refusals);
        }
        return refusals.get(0);
    }

    /** Factory configurations {@code factoryPid~<name>}, each named by its {@code name} property, in this order. */
    @SafeVarargs
    public static Map<String, Map<String, Object>> pools(String factoryPid, Map<String, Object>... pools) {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        for (Map<String, Object> pool : pools) {
            out.put(factoryPid + "~" + pool.get("name"), pool);
        }
        return out;
    }
}
