// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.osgi.framework.Bundle;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.component.runtime.dto.ReferenceDTO;
import org.osgi.service.component.runtime.dto.UnsatisfiedReferenceDTO;

/**
 * Turns SCR's runtime DTOs (OSGi Compendium R8, 112.12 "Introspection") into {@link ComponentInfo}s: the root
 * cause of an inactive component, named for an operator. Whether a bundle that is installed but not started
 * should run is not judged here: the config bundle may have stopped it on purpose.
 */
final class ComponentStates {

    private ComponentStates() {
    }

    /** Components of the given bundles, sorted by name; none when {@code bundles} is empty. */
    static List<ComponentInfo> of(ServiceComponentRuntime scr, List<Bundle> bundles) {
        return of(scr, bundles, StoppedProviders.NONE);
    }

    /**
     * As {@link #of(ServiceComponentRuntime, List)}; a component that waits only for services of bundles stopped on
     * purpose ({@code agent.bundles.<name>.enabled = false}) is listed but does not hold readiness back: it waits
     * for what the operator turned off, as one waiting for its configuration does.
     */
    static List<ComponentInfo> of(ServiceComponentRuntime scr, List<Bundle> bundles, StoppedProviders stopped) {
        if (bundles.isEmpty()) {
            return List.of(); // getComponentDescriptionDTOs() without arguments would list every bundle's
        }
        List<ComponentInfo> infos = new ArrayList<>();
        for (ComponentDescriptionDTO description : scr.getComponentDescriptionDTOs(bundles.toArray(Bundle[]::new))) {
            infos.addAll(describe(description, scr.isComponentEnabled(description),
                    scr.getComponentConfigurationDTOs(description), stopped));
        }
        infos.sort(Comparator.comparing(ComponentInfo::name));
        return infos;
    }

    /** One entry per configuration of an enabled component, one {@code DISABLED} entry otherwise. */
    static List<ComponentInfo> describe(ComponentDescriptionDTO description, boolean enabled,
                                        Collection<ComponentConfigurationDTO> configurations) {
        return describe(description, enabled, configurations, StoppedProviders.NONE);
    }

    static List<ComponentInfo> describe(ComponentDescriptionDTO description, boolean enabled,
                                        Collection<ComponentConfigurationDTO> configurations,
                                        StoppedProviders stopped) {
        String bundle = description.bundle == null ? "unknown" : description.bundle.symbolicName;
        if (!enabled) {
            return List.of(new ComponentInfo(description.name, bundle, "DISABLED", "disabled", false, false));
        }
        if (configurations.isEmpty()) {
            // SCR lists no configuration for a component it has not instantiated yet: one that waits for its
            // required configuration (an OPTIONAL or IGNORE policy always gets one).
            return List.of(waiting(description, description.name, bundle));
        }
        List<ComponentInfo> infos = new ArrayList<>();
        for (ComponentConfigurationDTO configuration : configurations) {
            infos.add(describe(description, configuration, bundle, stopped));
        }
        return infos;
    }

    private static ComponentInfo describe(ComponentDescriptionDTO description, ComponentConfigurationDTO configuration,
                                          String bundle, StoppedProviders stopped) {
        String name = displayName(description, configuration.properties);
        return switch (configuration.state) {
            case ComponentConfigurationDTO.ACTIVE -> new ComponentInfo(name, bundle, "ACTIVE", "active", true, false);
            case ComponentConfigurationDTO.SATISFIED ->
                    new ComponentInfo(name, bundle, "SATISFIED", "satisfied, not yet used", true, false);
            case ComponentConfigurationDTO.UNSATISFIED_CONFIGURATION -> waiting(description, name, bundle);
            case ComponentConfigurationDTO.UNSATISFIED_REFERENCE -> {
                String detail = unsatisfied(description, configuration.unsatisfiedReferences);
                java.util.Optional<String> off = stopped.allStopped(interfaces(description,
                        configuration.unsatisfiedReferences));
                yield off.isPresent()
                        ? new ComponentInfo(name, bundle, "UNSATISFIED_REFERENCE", detail + ", provided by "
                                + off.get() + ", which is disabled (agent.bundles." + off.get() + ".enabled = false)",
                                false, false)
                        : new ComponentInfo(name, bundle, "UNSATISFIED_REFERENCE", detail, true, true);
            }
            case ComponentConfigurationDTO.FAILED_ACTIVATION -> new ComponentInfo(name, bundle, "FAILED_ACTIVATION",
                    "activation failed: " + rootCause(configuration.failure), true, true);
            default -> new ComponentInfo(name, bundle, "UNKNOWN(" + configuration.state + ")",
                    "unknown SCR state " + configuration.state, true, true);
        };
    }

    private static ComponentInfo waiting(ComponentDescriptionDTO description, String name, String bundle) {
        String pids = description.configurationPid == null ? "" : String.join(", ", description.configurationPid);
        return new ComponentInfo(name, bundle, "UNSATISFIED_CONFIGURATION",
                "waiting for configuration" + (pids.isEmpty() ? "" : " " + pids), false, false);
    }

    /** {@code name~hca_a} for a named factory configuration, so several instances stay apart. */
    private static String displayName(ComponentDescriptionDTO description, Map<String, Object> properties) {
        Object factoryPid = properties == null ? null : properties.get("service.factoryPid");
        Object pid = properties == null ? null : properties.get("service.pid");
        if (factoryPid == null || !(pid instanceof String servicePid)) {
            return description.name;
        }
        int tilde = servicePid.indexOf('~');
        return description.name + "~" + (tilde >= 0 ? servicePid.substring(tilde + 1) : servicePid);
    }

    private static List<String> interfaces(ComponentDescriptionDTO description, UnsatisfiedReferenceDTO[] references) {
        if (references == null || description.references == null) {
            return List.of();
        }
        Map<String, ReferenceDTO> declared = Arrays.stream(description.references)
                .collect(Collectors.toMap(r -> r.name, r -> r, (a, b) -> a));
        List<String> names = new ArrayList<>();
        for (UnsatisfiedReferenceDTO reference : references) {
            ReferenceDTO d = declared.get(reference.name);
            if (d == null) {
                return List.of();
            }
            names.add(d.interfaceName);
        }
        return names;
    }

    private static String unsatisfied(ComponentDescriptionDTO description, UnsatisfiedReferenceDTO[] references) {
        if (references == null || references.length == 0) {
            return "unsatisfied reference (SCR named none)";
        }
        Map<String, ReferenceDTO> declared = description.references == null ? Map.of()
                : Arrays.stream(description.references).collect(Collectors.toMap(r -> r.name, r -> r, (a, b) -> a));
        return Arrays.stream(references)
                .map(r -> unsatisfied(r, declared.get(r.name)))
                .collect(Collectors.joining("; "));
    }

    private static String unsatisfied(UnsatisfiedReferenceDTO reference, ReferenceDTO declared) {
        StringBuilder text = new StringBuilder("unsatisfied reference ").append(reference.name);
        text.append(" (").append(declared == null ? "unknown interface" : declared.interfaceName);
        if (reference.target != null && !reference.target.isBlank()) {
            text.append(", target ").append(reference.target);
        }
        return text.append(')').toString();
    }

    /**
     * Why SCR's activation failed, from its failure text (a stack trace): when the first line is only the reflection
     * wrapper ("java.lang.reflect.InvocationTargetException", which said nothing of why, e.g. that the CNI socket's
     * directory is a file), the first cause, which is the component's own exception.
     */
    static String rootCause(String text) {
        String first = firstLine(text);
        if (text == null || !first.startsWith("java.lang.reflect.InvocationTargetException")) {
            return first;
        }
        for (String line : text.strip().split("\n")) {
            String l = line.strip();
            if (l.startsWith("Caused by: ")) {
                return l.substring("Caused by: ".length());
            }
        }
        return first;
    }

    static String firstLine(String text) {
        if (text == null || text.isBlank()) {
            return "no failure recorded by SCR";
        }
        String trimmed = text.strip();
        int end = trimmed.indexOf('\n');
        return (end < 0 ? trimmed : trimmed.substring(0, end)).strip();
    }
}
