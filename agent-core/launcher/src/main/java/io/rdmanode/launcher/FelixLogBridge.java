// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import org.apache.felix.framework.Logger;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.slf4j.LoggerFactory;

/** Sends the framework's own messages (resolver errors, bundle events gone wrong) to the agent's log. */
final class FelixLogBridge extends Logger {

    private static final org.slf4j.Logger LOG = LoggerFactory.getLogger("org.apache.felix.framework");

    FelixLogBridge() {
        // The resolver logs every wire at debug: hundreds of lines per start, only wanted when tracing.
        setLogLevel(LOG.isTraceEnabled() ? LOG_DEBUG : LOG_INFO);
    }

    /** The resolver's entry point (it does not pass a bundle); without it Felix prints to stdout itself. */
    @Override
    protected void doLog(int level, String msg, Throwable error) {
        doLog(null, null, level, msg, error);
    }

    @Override
    protected void doLog(Bundle bundle, ServiceReference sr, int level, String msg, Throwable error) {
        String text = bundle == null ? msg : msg + " bundle=" + bundle.getSymbolicName();
        switch (level) {
            case LOG_ERROR -> LOG.error(text, error);
            case LOG_WARNING -> LOG.warn(text, error);
            case LOG_INFO -> LOG.info(text, error);
            default -> LOG.debug(text, error);
        }
    }
}
