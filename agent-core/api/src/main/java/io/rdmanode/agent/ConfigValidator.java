// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A component's own check of its configuration, called before anything applies: by the config bridge on every
 * live reload and by {@code rdma-node-agent check-config}. The component calls the same code on activation, so
 * a value passes here exactly when the component would take it.
 *
 * <p>A bundle names its validators in the manifest header {@value #HEADER} (comma-separated class names, each
 * with a public no-argument constructor). The config bundle loads them from every installed bundle, started or
 * not, so {@code check-config} needs no component of theirs to run. A validator is a pure function of the
 * proposal: it opens nothing and changes nothing.
 *
 * @since 1.1
 */
@ConsumerType
public interface ConfigValidator {

    /** Manifest header listing a bundle's validator classes. */
    String HEADER = "Agent-Config-Validator";

    /**
     * @return every refusal; empty when the proposal is acceptable to this component. Configurations of PIDs the
     *         validator does not know are ignored.
     */
    List<Refusal> validate(Proposal proposal);

    /** What the file asks for, as ConfigAdmin would receive it, with the agent around it. */
    interface Proposal {

        /**
         * Every configuration of the file: key {@code pid} or {@code factoryPid~name}, value the typed properties
         * (after MetaType conversion: {@code String[]}, {@code long}, ...).
         */
        Map<String, Map<String, Object>> configurations();

        /**
         * A service of the framework the check runs in (the running agent, or {@code check-config}'s own), when
         * one is registered; validators that need the host (e.g. which pools would hold which device) use it and
         * skip that part, saying nothing, when it is absent.
         */
        <T> Optional<T> service(Class<T> type);
    }

    /**
     * One value the component refuses.
     *
     * @param configuration the key in {@link Proposal#configurations()} ({@code pid} or {@code factoryPid~name})
     * @param property      the property key ({@code selectors.pciAddresses}); the bridge prints it as the HOCON path
     *                      with {@code file:line}; empty when the refusal is about the configuration as a whole
     * @param message       what is wrong, with the limit or the accepted forms
     *                      ({@code "zz:zz" is not a PCI address (DDDD:BB:DD.F or BB:DD.F)})
     */
    record Refusal(String configuration, String property, String message) {

        /**
         * The refusal a component's settings code threw: at its {@link SettingException#property() property},
         * or of the configuration as a whole for any other {@link IllegalArgumentException}.
         *
         * @since 1.2
         */
        public static Refusal of(String configuration, IllegalArgumentException refused) {
            return new Refusal(configuration, refused instanceof SettingException s ? s.property() : "",
                    refused.getMessage());
        }
    }
}
