// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import io.rdmanode.agent.AgentProperties;
import io.rdmanode.agent.ConfigCheck;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.MetaTypeService;

/**
 * {@link ConfigCheck}: the reload's read, parse, map and check steps ({@link HoconFile}, {@link ConfigMapper}
 * against {@link MetaTypeSchemas}, then the bundles' {@link ConfigValidators}) without its apply step, so a file passes here exactly when a running agent with the
 * same bundles would apply it. Needs no ConfigurationAdmin: {@code check-config} runs it in a framework where
 * nothing else is started.
 */
@Component(service = ConfigCheck.class)
public final class OfflineConfigCheck implements ConfigCheck {

    private final BundleContext context;
    private final MetaTypeService metaType;
    private final ConfigValidators validators;

    @Activate
    public OfflineConfigCheck(BundleContext context, @Reference MetaTypeService metaType) {
        this.context = context;
        this.metaType = metaType;
        this.validators = new ConfigValidators(context);
    }

    @Override
    public Result check(Path file) {
        Path absolute = file.toAbsolutePath();
        byte[] content;
        try {
            content = HoconFile.read(absolute);
        } catch (IOException e) {
            return new Result(strings(HoconFile.unreadable(absolute, e).problems()), List.of());
        }
        HoconFile.Parsed parsed = HoconFile.parse(absolute, content, frameworkProperties(absolute));
        if (!parsed.ok()) {
            return new Result(strings(parsed.problems()), List.of());
        }
        Mapping mapping = ConfigMapper.map(parsed.config(), absolute.toString(),
                MetaTypeSchemas.read(context, metaType), new BundleSwitches(context).installedNames());
        List<Problem> errors = new ArrayList<>(mapping.errors());
        errors.addAll(validators.check(mapping, absolute.toString()));
        return new Result(strings(errors), strings(mapping.warnings()));
    }

    /** The substitutions a running agent offers the file; the state directory is the checker's own. */
    private Map<String, String> frameworkProperties(Path file) {
        Map<String, String> properties = new HashMap<>();
        for (String key : new String[] {AgentProperties.STATE_DIR, AgentProperties.VERSION}) {
            String value = context.getProperty(key);
            if (value != null) {
                properties.put(key, value);
            }
        }
        properties.put(AgentProperties.CONFIG, file.toString());
        return properties;
    }

    private static List<String> strings(List<Problem> problems) {
        Columns columns = new Columns();
        return problems.stream().map(columns::describe).toList();
    }
}
