// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher.logging;

import java.time.Instant;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** An SLF4J logger writing through {@link LogLineFormatter} at the process-wide level. */
final class AgentLogger extends AbstractLogger {

    private static final long serialVersionUID = 1L;

    AgentLogger(String name) {
        this.name = name;
    }

    private static boolean enabled(Level at) {
        return at.toInt() >= LogSettings.level().toInt();
    }

    @Override
    public boolean isTraceEnabled() {
        return enabled(Level.TRACE);
    }

    @Override
    public boolean isTraceEnabled(Marker marker) {
        return isTraceEnabled();
    }

    @Override
    public boolean isDebugEnabled() {
        return enabled(Level.DEBUG);
    }

    @Override
    public boolean isDebugEnabled(Marker marker) {
        return isDebugEnabled();
    }

    @Override
    public boolean isInfoEnabled() {
        return enabled(Level.INFO);
    }

    @Override
    public boolean isInfoEnabled(Marker marker) {
        return isInfoEnabled();
    }

    @Override
    public boolean isWarnEnabled() {
        return enabled(Level.WARN);
    }

    @Override
    public boolean isWarnEnabled(Marker marker) {
        return isWarnEnabled();
    }

    @Override
    public boolean isErrorEnabled() {
        return enabled(Level.ERROR);
    }

    @Override
    public boolean isErrorEnabled(Marker marker) {
        return isErrorEnabled();
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args,
            Throwable error) {
        String message = MessageFormatter.basicArrayFormat(pattern, args);
        String line = LogLineFormatter.format(LogSettings.format(), Instant.now(), level,
                Thread.currentThread().getName(), name, message, error);
        LogSettings.out().println(line);
    }
}
