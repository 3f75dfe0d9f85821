// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import io.rdmanode.agent.LoggingControl;
import io.rdmanode.launcher.logging.LogFormat;
import io.rdmanode.launcher.logging.LogSettings;
import java.util.Hashtable;
import org.osgi.framework.BundleContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets the config bundle change {@code agent.runtime.log.level} and {@code .format} while the agent runs: the
 * logging backend lives on the launcher's class path, outside every bundle, so the launcher offers it as the
 * platform API's {@link LoggingControl} service (the system bundle exports {@code io.rdmanode.agent}).
 */
final class LiveLogging implements LoggingControl {

    private static final Logger LOG = LoggerFactory.getLogger(LiveLogging.class);

    private volatile org.slf4j.event.Level level;
    private volatile LogFormat format;

    LiveLogging(org.slf4j.event.Level level, LogFormat format) {
        this.level = level;
        this.format = format;
    }

    static void register(BundleContext system, org.slf4j.event.Level level, LogFormat format) {
        system.registerService(LoggingControl.class, new LiveLogging(level, format), new Hashtable<>());
    }

    @Override
    public Level level() {
        return Level.valueOf(level.name());
    }

    @Override
    public Format format() {
        return Format.valueOf(format.name());
    }

    @Override
    public synchronized void configure(Level newLevel, Format newFormat) {
        org.slf4j.event.Level toLevel = newLevel == null ? level : org.slf4j.event.Level.valueOf(newLevel.name());
        LogFormat toFormat = newFormat == null ? format : LogFormat.valueOf(newFormat.name());
        if (toLevel != level || toFormat != format) {
            LogSettings.configure(toLevel, toFormat);
            LOG.info("logging changed level={} format={} (was {} {})", toLevel, toFormat, level, format);
            level = toLevel;
            format = toFormat;
        }
    }
}
