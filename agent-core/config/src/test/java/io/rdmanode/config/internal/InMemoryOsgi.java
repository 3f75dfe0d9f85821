// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The OSGi services a reload touches, in memory: a framework with no other bundle and no services, and a
 * ConfigurationAdmin that keeps configurations by PID and records every deletion. Only the calls the config
 * bundle makes are answered; any other fails the test.
 */
final class InMemoryOsgi {

    /** ConfigurationAdmin's store; {@link #deleted} is every PID an apply deleted, in order. */
    static final class Admin {
        final Map<String, Dictionary<String, Object>> stored = Collections.synchronizedMap(new LinkedHashMap<>());
        final List<String> deleted = Collections.synchronizedList(new ArrayList<>());
        /** Set: every update fails with this message, as ConfigurationAdmin's store on a full disk does. */
        volatile String failWrites;
        final ConfigurationAdmin service = proxy(ConfigurationAdmin.class, (method, args) -> switch (method) {
            case "getConfiguration" -> configuration((String) args[0]);
            case "getFactoryConfiguration" -> configuration(args[0] + "~" + args[1]);
            case "listConfigurations" -> {
                List<String> pids;
                synchronized (stored) {
                    pids = List.copyOf(stored.keySet());
                }
                yield pids.isEmpty() ? null : pids.stream().map(this::configuration).toArray(Configuration[]::new);
            }
            default -> throw new UnsupportedOperationException(method);
        });

        private Configuration configuration(String pid) {
            return proxy(Configuration.class, (method, args) -> switch (method) {
                case "getPid" -> pid;
                case "getProperties" -> stored.get(pid);
                case "updateIfDifferent" -> {
                    if (failWrites != null) {
                        throw new java.io.UncheckedIOException(new java.io.IOException(failWrites));
                    }
                    @SuppressWarnings("unchecked")
                    Dictionary<String, Object> properties = new Hashtable<>((Map<String, Object>) args[0]);
                    yield !properties.equals(stored.put(pid, properties));
                }
                case "delete" -> {
                    stored.remove(pid);
                    deleted.add(pid);
                    yield null;
                }
                default -> throw new UnsupportedOperationException(method);
            });
        }
    }

    private InMemoryOsgi() {
    }

    /** A framework where this is the only bundle: no other bundle, service or framework property. */
    static BundleContext context() {
        return proxy(BundleContext.class, (method, args) -> switch (method) {
            case "getBundles" -> new Bundle[0];
            case "getProperty", "getServiceReference", "getServiceReferences" -> null;
            default -> throw new UnsupportedOperationException(method);
        });
    }

    private interface Answer {
        Object answer(String method, Object[] args);
    }

    private static <T> T proxy(Class<T> type, Answer answer) {
        return type.cast(Proxy.newProxyInstance(InMemoryOsgi.class.getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> switch (method.getName()) {
                    case "toString" -> "in-memory " + type.getSimpleName();
                    case "hashCode" -> System.identityHashCode(self);
                    case "equals" -> self == args[0];
                    default -> answer.answer(method.getName(), args);
                }));
    }
}
