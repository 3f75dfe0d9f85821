// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import io.rdmanode.agent.ConfigValidator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.wiring.BundleRevision;

/**
 * The components' own checks ({@link ConfigValidator}), run after the MetaType check: the classes every installed
 * bundle names in its {@value ConfigValidator#HEADER} header, loaded through the bundle's class loader (started or
 * not) and kept per bundle revision, so a hot-swapped jar brings its new validator. A refusal becomes a
 * {@link Problem} at the line of the value it refuses; a validator that cannot be loaded or that throws is an
 * error naming the bundle and the class, since the file cannot be shown to be acceptable.
 */
final class ConfigValidators {

    /** The validators of one bundle revision, or why they could not be loaded. */
    private record Loaded(BundleRevision revision, List<ConfigValidator> validators, List<String> failures) {
    }

    private final BundleContext context;
    private final Map<Long, Loaded> byBundle = new ConcurrentHashMap<>();

    ConfigValidators(BundleContext context) {
        this.context = context;
    }

    /** Every refusal of every installed bundle's validators, located in the file; empty when all accept. */
    List<Problem> check(Mapping mapping, String file) {
        Map<String, TargetConfiguration> byKey = new LinkedHashMap<>();
        Map<String, Map<String, Object>> configurations = new LinkedHashMap<>();
        for (TargetConfiguration target : mapping.configurations()) {
            byKey.put(target.displayPid(), target);
            configurations.put(target.displayPid(), Map.copyOf(target.properties()));
        }
        List<Problem> problems = new ArrayList<>();
        // In the file's order (Map.copyOf's order is random per JVM): a validator that reports the second of two
        // clashing entries names the same one in check-config and in the running agent.
        try (ServiceProposal proposal = new ServiceProposal(context,
                java.util.Collections.unmodifiableMap(configurations))) {
            for (Bundle bundle : context.getBundles()) {
                Loaded loaded = load(bundle);
                if (loaded == null) {
                    continue;
                }
                loaded.failures().forEach(f -> problems.add(new Problem(file, -1, "", f)));
                for (ConfigValidator validator : loaded.validators()) {
                    List<ConfigValidator.Refusal> refusals;
                    try {
                        refusals = validator.validate(proposal);
                    } catch (RuntimeException | LinkageError e) {
                        problems.add(new Problem(file, -1, "", "the configuration check "
                                + validator.getClass().getName() + " of bundle " + bundle.getSymbolicName()
                                + " failed (" + e + "); the file is not applied until it can be checked"));
                        continue;
                    }
                    for (ConfigValidator.Refusal refusal : refusals == null ? List.<ConfigValidator.Refusal>of()
                            : refusals) {
                        problems.add(locate(refusal, byKey.get(refusal.configuration()), file));
                    }
                }
            }
        }
        return List.copyOf(problems);
    }

    private static Problem locate(ConfigValidator.Refusal refusal, TargetConfiguration target, String file) {
        String property = refusal.property() == null ? "" : refusal.property();
        if (target == null) {
            return new Problem(file, -1, refusal.configuration() + (property.isEmpty() ? "" : "." + property),
                    refusal.message());
        }
        TargetConfiguration.Origin origin = target.origin(property);
        return new Problem(origin.file() != null ? origin.file() : file, origin.line(),
                property.isEmpty() ? target.path() : target.path() + "." + property, refusal.message());
    }

    /** The bundle's validators, loaded once per revision; null for a bundle without the header or gone. */
    private Loaded load(Bundle bundle) {
        if (bundle.getState() == Bundle.UNINSTALLED) {
            byBundle.remove(bundle.getBundleId());
            return null;
        }
        String header;
        BundleRevision revision;
        try {
            header = bundle.getHeaders("").get(ConfigValidator.HEADER);
            revision = bundle.adapt(BundleRevision.class);
        } catch (IllegalStateException goneWhileLooking) {
            return null;
        }
        if (header == null || header.isBlank() || revision == null) {
            byBundle.remove(bundle.getBundleId());
            return null;
        }
        Loaded cached = byBundle.get(bundle.getBundleId());
        if (cached != null && cached.revision() == revision) {
            return cached;
        }
        List<ConfigValidator> validators = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (String name : header.split(",")) {
            String className = name.trim();
            if (className.isEmpty()) {
                continue;
            }
            try {
                Class<?> type = bundle.loadClass(className);
                validators.add((ConfigValidator) type.getConstructor().newInstance());
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                failures.add("cannot load the configuration check " + className + " that bundle "
                        + bundle.getSymbolicName() + " names in " + ConfigValidator.HEADER + " (" + e
                        + "); the file is not applied until it can be checked");
            }
        }
        Loaded loaded = new Loaded(revision, List.copyOf(validators), List.copyOf(failures));
        if (failures.isEmpty()) {
            byBundle.put(bundle.getBundleId(), loaded); // a failure is tried again next time (resolution may change)
        }
        return loaded;
    }

    /** The proposal handed to validators; services it hands out are released when the check ends. */
    private static final class ServiceProposal implements ConfigValidator.Proposal, AutoCloseable {

        private final BundleContext context;
        private final Map<String, Map<String, Object>> configurations;
        private final List<ServiceReference<?>> used = new ArrayList<>();

        ServiceProposal(BundleContext context, Map<String, Map<String, Object>> configurations) {
            this.context = context;
            this.configurations = configurations;
        }

        @Override
        public Map<String, Map<String, Object>> configurations() {
            return configurations;
        }

        @Override
        public <T> Optional<T> service(Class<T> type) {
            try {
                ServiceReference<T> reference = context.getServiceReference(type);
                if (reference == null) {
                    return Optional.empty();
                }
                T service = context.getService(reference);
                if (service != null) {
                    used.add(reference);
                }
                return Optional.ofNullable(service);
            } catch (IllegalStateException | IllegalArgumentException stoppingOrForeignClass) {
                return Optional.empty();
            }
        }

        @Override
        public void close() {
            for (ServiceReference<?> reference : used) {
                try {
                    context.ungetService(reference);
                } catch (IllegalStateException stopping) {
                    // the config bundle is stopping; the framework releases it anyway
                }
            }
        }
    }
}
