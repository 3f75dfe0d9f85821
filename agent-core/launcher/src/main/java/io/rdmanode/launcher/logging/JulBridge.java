// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher.logging;

import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * java.util.logging records (gRPC logs through nothing else) into the agent's own log: its format (JSON included),
 * level and stream, rather than JUL's two-line text on stderr beside it. gRPC reports a peer that wrote garbage on a
 * device-plugin socket as INFO "Transport failed" with a stack trace, 20 lines a connection and unthrottled: a
 * client's misbehaviour, not the agent's news, so gRPC's transport passes WARNING and above only.
 */
public final class JulBridge extends Handler {
    /** Held: JUL keeps its loggers weakly, and a collected logger forgets the level set on it. */
    private static final java.util.logging.Logger GRPC_TRANSPORT = java.util.logging.Logger.getLogger("io.grpc.netty");
    private static final Formatter MESSAGE = new Formatter() {
        @Override
        public String format(LogRecord record) {
            return formatMessage(record);
        }
    };

    private JulBridge() {
    }

    /** Replaces the root logger's handlers (JUL's console handler) with this bridge. */
    public static void install() {
        java.util.logging.Logger root = LogManager.getLogManager().getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        root.addHandler(new JulBridge());
        GRPC_TRANSPORT.setLevel(Level.WARNING);
    }

    @Override
    public void publish(LogRecord record) {
        if (record == null) {
            return;
        }
        Logger log = LoggerFactory.getLogger(record.getLoggerName() == null ? "jul" : record.getLoggerName());
        String message = MESSAGE.format(record);
        Throwable thrown = record.getThrown();
        int level = record.getLevel().intValue();
        if (level >= Level.SEVERE.intValue()) {
            log.error("{}", message, thrown);
        } else if (level >= Level.WARNING.intValue()) {
            log.warn("{}", message, thrown);
        } else if (level >= Level.INFO.intValue()) {
            log.info("{}", message, thrown);
        } else if (level >= Level.FINE.intValue()) {
            log.debug("{}", message, thrown);
        } else {
            log.trace("{}", message, thrown);
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
