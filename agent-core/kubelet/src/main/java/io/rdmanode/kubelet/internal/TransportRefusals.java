// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.agent.LogText;
import io.rdmanode.agent.RefusalLog;
import java.time.Duration;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.slf4j.LoggerFactory;

/**
 * grpc-java logs a request it refuses in its transport (a message over the size limit, answered
 * {@code RESOURCE_EXHAUSTED} from its length prefix) through java.util.logging at WARNING, with a stack trace:
 * some 20 lines per request a client can repeat in a loop. While a host runs, those records go through a
 * {@link RefusalLog} instead: one line a minute with the count, no stack trace. Other records pass unchanged.
 */
final class TransportRefusals implements Filter, AutoCloseable {

    private static final String STREAM_LOGGER = "io.grpc.netty.NettyServerStream";
    private static final RefusalLog REFUSALS = new RefusalLog(LoggerFactory.getLogger(STREAM_LOGGER),
            Duration.ofMinutes(1));

    private final Logger logger = Logger.getLogger(STREAM_LOGGER);     // held: JUL keeps loggers weakly
    private final Filter previous;

    TransportRefusals() {
        previous = logger.getFilter();
        logger.setFilter(this);
    }

    @Override
    public boolean isLoggable(LogRecord record) {
        if (record.getLevel().intValue() <= Level.WARNING.intValue() && record.getThrown() != null) {
            Throwable t = record.getThrown();
            REFUSALS.warn("transport", "request refused by the gRPC transport: {}",
                    LogText.escape(String.valueOf(t.getMessage())));
            return false;
        }
        return previous == null || previous.isLoggable(record);
    }

    @Override
    public void close() {
        if (logger.getFilter() == this) {
            logger.setFilter(previous);
        }
    }
}
