// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.probe.internal;

import io.rdmanode.health.StatusSection;
import io.rdmanode.probe.Probe;
import java.util.Map;
import java.util.TreeMap;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Receives {@code probe { ... }} from the agent's config file and shows it as {@code /status -> probe}. */
@Component(configurationPid = ProbeComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {Probe.class, StatusSection.class})
@Designate(ocd = ProbeComponent.Config.class)
public final class ProbeComponent implements Probe, StatusSection {

    static final String PID = "io.rdmanode.probe";

    @ObjectClassDefinition(name = "Probe", description = "Test-only component recording its configuration")
    public @interface Config {
        @AttributeDefinition(description = "Any text; required")
        String greeting();

        @AttributeDefinition(min = "1", max = "64")
        int size() default 4;

        @AttributeDefinition(description = "Milliseconds")
        long interval() default 1000;

        String[] tags() default {};

        @AttributeDefinition(options = {
            @org.osgi.service.metatype.annotations.Option(value = "fast"),
            @org.osgi.service.metatype.annotations.Option(value = "slow")})
        String mode() default "fast";
    }

    private final String build;
    private volatile Map<String, Object> config;
    private volatile int modifications;

    @Activate
    public ProbeComponent(BundleContext context, Map<String, Object> properties) {
        this.build = context.getBundle().getHeaders().get("Probe-Build");
        this.config = own(properties);
    }

    @Modified
    void modified(Map<String, Object> properties) {
        this.config = own(properties);
        modifications++;
    }

    private static Map<String, Object> own(Map<String, Object> properties) {
        Map<String, Object> own = new TreeMap<>();
        properties.forEach((key, value) -> {
            if (!key.startsWith("component.") && !key.startsWith("service.") && !key.startsWith(".")) {
                own.put(key, value instanceof String[] array ? java.util.List.of(array) : value);
            }
        });
        return own;
    }

    @Override
    public Map<String, Object> config() {
        return config;
    }

    @Override
    public int modifications() {
        return modifications;
    }

    @Override
    public String build() {
        return build;
    }

    @Override
    public String name() {
        return "probe";
    }

    @Override
    public Object status() {
        return Map.of("config", config, "modifications", modifications, "build", String.valueOf(build));
    }
}
