// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.event.Level;
import org.slf4j.Marker;

class RefusalLogTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final RecordingLogger lines = new RecordingLogger();
    private final RefusalLog log = new RefusalLog(lines, Duration.ofSeconds(60), now::get);

    @Test
    void aRefusalRepeatedInALoopWritesOneLinePerIntervalWithACount() {
        for (int i = 0; i < 10_000; i++) {
            log.warn("allocate-unknown:rdma/vf", "Allocate refused: unknown device {}", "id-" + i);
        }
        assertThat(lines.lines).containsExactly("Allocate refused: unknown device id-0");
        assertThat(log.suppressed("allocate-unknown:rdma/vf")).isEqualTo(9_999);

        now.addAndGet(Duration.ofSeconds(61).toNanos());
        log.warn("allocate-unknown:rdma/vf", "Allocate refused: unknown device {}", "id-x");

        assertThat(lines.lines).last().isEqualTo("Allocate refused: unknown device id-x (and 9999 more like it in the last 60 s)");
        assertThat(log.suppressed("allocate-unknown:rdma/vf")).isZero();
    }

    @Test
    void keysAreLimitedIndependently() {
        log.warn("a", "first {}", 1);
        log.warn("b", "second {}", 2);
        log.warn("a", "first {}", 3);

        assertThat(lines.lines).containsExactly("first 1", "second 2");
    }

    @Test
    void aClientVaryingTheKeyCannotGrowTheTablePastItsBound() {
        for (int i = 0; i < RefusalLog.MAX_KEYS * 4; i++) {
            log.warn("key-" + i, "refused {}", i);
        }
        // The first MAX_KEYS keys each log once; everything past shares the overflow slot: one more line.
        assertThat(lines.lines).hasSize(RefusalLog.MAX_KEYS + 1);
    }

    @Test
    void aTrailingThrowableStaysLastSoItsStackIsPrinted() {
        log.warn("k", "failed {}", "x", new IllegalStateException("boom"));
        log.warn("k", "failed {}", "y", new IllegalStateException("boom"));
        now.addAndGet(Duration.ofSeconds(61).toNanos());
        log.warn("k", "failed {}", "z", new IllegalStateException("boom"));

        assertThat(lines.throwables).hasSize(2);
        assertThat(lines.lines).last().isEqualTo("failed z (and 1 more like it in the last 60 s)");
    }

    /** Collects formatted WARN lines, the way the agent's backend would format them. */
    private static final class RecordingLogger extends AbstractLogger {
        private static final long serialVersionUID = 1L;
        final List<String> lines = new ArrayList<>();
        final List<Throwable> throwables = new ArrayList<>();

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
                Throwable throwable) {
            lines.add(MessageFormatter.basicArrayFormat(pattern, arguments));
            if (throwable != null) {
                throwables.add(throwable);
            }
        }

        @Override public boolean isTraceEnabled() { return false; }
        @Override public boolean isTraceEnabled(Marker marker) { return false; }
        @Override public boolean isDebugEnabled() { return false; }
        @Override public boolean isDebugEnabled(Marker marker) { return false; }
        @Override public boolean isInfoEnabled() { return true; }
        @Override public boolean isInfoEnabled(Marker marker) { return true; }
        @Override public boolean isWarnEnabled() { return true; }
        @Override public boolean isWarnEnabled(Marker marker) { return true; }
        @Override public boolean isErrorEnabled() { return true; }
        @Override public boolean isErrorEnabled(Marker marker) { return true; }
    }
}
