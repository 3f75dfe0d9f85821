// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Logs refusals (a request the agent turned down because the client sent something wrong) at most once per key
 * and interval. A client that repeats a bad request in a loop would otherwise write one line per attempt: one run
 * of an unknown device ID in a loop wrote 62 MB of log. The first refusal of a key is logged at once; the ones
 * that follow within the interval are counted, and the next line logged for that key says how many were left
 * out ({@code (and 4,211 more like it in the last 60 s)}). Keys should name the kind of refusal and the client
 * or resource it concerns (for example {@code allocate-unknown:rdma/hca_shared}), not the untrusted value, so a
 * client that varies the value cannot grow the table: the table also has a bound, and past it every key shares
 * one overflow slot.
 *
 * <p>Thread-safe. Values that came from the client should still go through {@link LogText#escape}.
 *
 * @since 1.3
 */
public final class RefusalLog {

    /** Keys remembered at once; past this every new key shares one slot. */
    static final int MAX_KEYS = 1024;
    private static final String OVERFLOW_KEY = "\0overflow";

    private final Logger logger;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    /** One line per key every {@code interval}, on {@code logger} at WARN. */
    public RefusalLog(Logger logger, Duration interval) {
        this(logger, interval, System::nanoTime);
    }

    RefusalLog(Logger logger, Duration interval, LongSupplier nanoClock) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval must be positive: " + interval);
        }
        this.logger = logger;
        this.intervalNanos = interval.toNanos();
        this.nanoClock = nanoClock;
    }

    /**
     * Logs {@code format} (SLF4J style) at WARN unless a line for {@code key} was logged within the interval, in
     * which case the refusal is only counted. Returns whether the line was written.
     */
    public boolean warn(String key, String format, Object... arguments) {
        long now = nanoClock.getAsLong();
        Window window = window(key, now);
        long suppressed;
        synchronized (window) {
            if (window.loggedAt != Long.MIN_VALUE && now - window.loggedAt < intervalNanos) {
                window.suppressed++;
                return false;
            }
            suppressed = window.suppressed;
            window.suppressed = 0;
            window.loggedAt = now;
        }
        if (!logger.isWarnEnabled()) {
            return false;
        }
        if (suppressed > 0) {
            logger.warn(format + " (and {} more like it in the last {} s)",
                    append(arguments, suppressed, Math.max(1, Duration.ofNanos(intervalNanos).toSeconds())));
        } else {
            logger.warn(format, arguments);
        }
        return true;
    }

    /** Refusals counted but not logged since each key's last line, for tests and status. */
    public long suppressed(String key) {
        Window window = windows.get(key);
        if (window == null) {
            return 0;
        }
        synchronized (window) {
            return window.suppressed;
        }
    }

    private Window window(String key, long now) {
        Window window = windows.get(key);
        if (window != null) {
            return window;
        }
        if (windows.size() >= MAX_KEYS) {
            forgetQuietKeys(now);
            if (windows.size() >= MAX_KEYS) {
                return windows.computeIfAbsent(OVERFLOW_KEY, k -> new Window());
            }
        }
        return windows.computeIfAbsent(key, k -> new Window());
    }

    /** Drops keys whose interval has passed with nothing counted: logging them again is exactly what they'd do. */
    private void forgetQuietKeys(long now) {
        for (Iterator<Window> it = windows.values().iterator(); it.hasNext(); ) {
            Window window = it.next();
            synchronized (window) {
                if (window.suppressed == 0 && now - window.loggedAt >= intervalNanos) {
                    it.remove();
                }
            }
        }
    }

    private static Object[] append(Object[] arguments, Object... more) {
        // A trailing Throwable must stay last for SLF4J to print its stack trace.
        boolean throwable = arguments.length > 0 && arguments[arguments.length - 1] instanceof Throwable;
        int plain = throwable ? arguments.length - 1 : arguments.length;
        Object[] all = new Object[arguments.length + more.length];
        System.arraycopy(arguments, 0, all, 0, plain);
        System.arraycopy(more, 0, all, plain, more.length);
        if (throwable) {
            all[all.length - 1] = arguments[arguments.length - 1];
        }
        return all;
    }

    private static final class Window {
        long loggedAt = Long.MIN_VALUE;
        long suppressed;
    }
}
