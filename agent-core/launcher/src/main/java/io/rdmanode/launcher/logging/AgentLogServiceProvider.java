// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher.logging;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The agent's one SLF4J backend. It lives on the launcher's class path, and {@code org.slf4j} is exported by
 * the system bundle, so every bundle logs through it without carrying a backend of its own.
 */
public final class AgentLogServiceProvider implements SLF4JServiceProvider {

    private final ConcurrentMap<String, AgentLogger> loggers = new ConcurrentHashMap<>();
    private final ILoggerFactory loggerFactory = name -> loggers.computeIfAbsent(name, AgentLogger::new);
    private final IMarkerFactory markerFactory = new BasicMarkerFactory();
    private final MDCAdapter mdcAdapter = new NOPMDCAdapter();

    @Override
    public ILoggerFactory getLoggerFactory() {
        return loggerFactory;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markerFactory;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdcAdapter;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {
        // Loggers are created lazily; nothing to prepare.
    }
}
