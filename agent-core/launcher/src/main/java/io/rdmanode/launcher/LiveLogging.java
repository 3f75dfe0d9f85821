// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import io.rdmanode.launcher.logging.LogFormat;
import io.rdmanode.launcher.logging.LogSettings;
import java.util.Hashtable;
import java.util.Map;
import java.util.function.Consumer;
import org.osgi.framework.BundleContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Lets the config bundle change {@code agent.runtime.log.level} and {@code .format} while the agent runs. The
 * logging backend lives on the launcher's class path, outside every bundle, so it is offered as a service whose
 * type every bundle already sees: a {@code java.util.function.Consumer} of {@code {level, format}}, found by the
 * property {@code rdma.agent.control=logging}. No API package of the launcher has to be exported for it.
 */
final class LiveLogging implements Consumer<Map<String, Object>> {

    static final String CONTROL_PROPERTY = "rdma.agent.control";
    static final String CONTROL = "logging";
    private static final Logger LOG = LoggerFactory.getLogger(LiveLogging.class);

    private volatile Level level;
    private volatile LogFormat format;

    LiveLogging(Level level, LogFormat format) {
        this.level = level;
        this.format = format;
    }

    static void register(BundleContext system, Level level, LogFormat format) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(CONTROL_PROPERTY, CONTROL);
        system.registerService(Consumer.class, new LiveLogging(level, format), properties);
    }

    /** {@code level}/{@code format} absent mean the defaults (info, text); values were validated by the caller. */
    @Override
    public synchronized void accept(Map<String, Object> settings) {
        Level newLevel = LogSettings.parseLevel(String.valueOf(settings.getOrDefault("level", "info")));
        LogFormat newFormat = LogFormat.parse(String.valueOf(settings.getOrDefault("format", "text")));
        if (newLevel != level || newFormat != format) {
            LogSettings.configure(newLevel, newFormat);
            LOG.info("logging changed level={} format={} (was {} {})", newLevel, newFormat, level, format);
            level = newLevel;
            format = newFormat;
        }
    }
}
