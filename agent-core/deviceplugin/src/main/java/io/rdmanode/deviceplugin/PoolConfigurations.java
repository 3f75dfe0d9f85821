// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.agent.SettingException;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A pool bundle's configurations in a proposal (as {@code io.rdmanode.agent.ConfigValidator.Proposal} and
 * {@link DeviceOwner} receive them), read through the component's own configuration annotation the way SCR
 * does: {@code selectors_vendors()} is property {@code selectors.vendors}, a missing property is the annotation's
 * default, a single value stands for a one-element array. So a validator and an owner compute exactly what the
 * activated component would.
 *
 * <p>Every device-plugin bundle keeps its pools in the factory configurations of
 * {@code io.rdmanode.deviceplugin.<kind>.pools} (HOCON {@code deviceplugin.<kind>.pools = [ ... ]}), each with
 * {@code name}, {@code resourceName} (default: the name) and {@code resourcePrefix} (default
 * {@value #DEFAULT_RESOURCE_PREFIX}): so the layer sees every pool's extended resource name, offline too.
 *
 * @since 1.1
 */
public final class PoolConfigurations {

    /** The resource prefix of a pool that sets none; the pool bundles' {@code Config} default. @since 2.1 */
    public static final String DEFAULT_RESOURCE_PREFIX = "rdma";

    private static final Pattern POOL = Pattern.compile("io\\.rdmanode\\.deviceplugin\\.[^.~]+\\.pools~.+");

    private PoolConfigurations() {
    }

    /** Whether {@code key} ({@code factoryPid~name}) is a device-plugin pool's configuration. @since 2.1 */
    public static boolean isPool(String key) {
        return POOL.matcher(key).matches();
    }

    /**
     * A pool's extended resource name, {@code <resourcePrefix>/<resourceName>} with the pool bundles' defaults
     * (the prefix {@value #DEFAULT_RESOURCE_PREFIX}, the pool's name). Not checked: the bundle's validator
     * refuses a name kubelet would not take.
     *
     * @param key        the pool's configuration key, {@code factoryPid~name}
     * @param properties its properties
     * @since 2.1
     */
    public static String extendedResourceName(String key, Map<String, Object> properties) {
        String name = text(properties.get("resourceName"));
        if (name.isEmpty()) {
            name = properties.containsKey("name") ? text(properties.get("name")) : key.substring(key.indexOf('~') + 1);
        }
        String prefix = properties.containsKey("resourcePrefix") ? text(properties.get("resourcePrefix"))
                : DEFAULT_RESOURCE_PREFIX;
        return prefix + "/" + name;
    }

    private static String text(Object value) {
        return value == null ? "" : String.valueOf(value);
    }

    /** The entries of {@code factoryPid} ({@code factoryPid~name}), in proposal order. */
    public static Map<String, Map<String, Object>> of(Map<String, Map<String, Object>> configurations,
                                                      String factoryPid) {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        configurations.forEach((k, v) -> {
            if (k.startsWith(factoryPid + "~")) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** {@code properties} as the configuration annotation {@code type}. */
    public static <A> A typed(Class<A> type, Map<String, Object> properties) {
        Object proxy = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (p, method, args) -> switch (method.getName()) {
                    case "toString" -> type.getSimpleName() + properties;
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    case "annotationType" -> type;
                    default -> value(method, properties.get(property(method)));
                });
        return type.cast(proxy);
    }

    private static Object value(Method m, Object raw) {
        Class<?> t = m.getReturnType();
        if (raw == null) {
            Object d = m.getDefaultValue();
            if (d == null && t.isPrimitive()) {
                throw new SettingException(property(m), property(m) + " is missing");
            }
            return d;
        }
        if (t.isArray()) {
            Object[] items = raw instanceof Collection<?> c ? c.toArray()
                    : raw.getClass().isArray() ? boxed(raw) : new Object[] {raw};
            Object out = Array.newInstance(t.getComponentType(), items.length);
            for (int i = 0; i < items.length; i++) {
                Array.set(out, i, scalar(t.getComponentType(), items[i], m));
            }
            return out;
        }
        return scalar(t, raw, m);
    }

    /** {@code selectors_vendors()} is property {@code selectors.vendors}, as SCR maps it. */
    private static String property(Method m) {
        return m.getName().replace('_', '.');
    }

    private static Object[] boxed(Object array) {
        Object[] out = new Object[Array.getLength(array)];
        for (int i = 0; i < out.length; i++) {
            out[i] = Array.get(array, i);
        }
        return out;
    }

    private static Object scalar(Class<?> t, Object raw, Method m) {
        if (t == String.class) {
            return String.valueOf(raw);
        }
        if (t == int.class || t == Integer.class) {
            if (raw instanceof Number n) {
                return n.intValue();
            }
            try {
                return Integer.parseInt(String.valueOf(raw).trim());
            } catch (NumberFormatException e) {
                throw new SettingException(property(m), property(m) + " = " + raw + " is not an integer");
            }
        }
        if (t == long.class || t == Long.class) {
            return raw instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(raw).trim());
        }
        if (t == boolean.class || t == Boolean.class) {
            return raw instanceof Boolean b ? b : Boolean.parseBoolean(String.valueOf(raw).trim());
        }
        throw new IllegalArgumentException(m.getName() + ": unsupported type " + t.getSimpleName());
    }
}
