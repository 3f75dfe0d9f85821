// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.verbs.AsyncEvent;
import io.rdmanode.verbs.AsyncEventType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Which verbs async events ask for which scan. */
class VerbsEventHintsTest {

    private final List<ScanHints> hints = new ArrayList<>();
    private final VerbsEventHints events = new VerbsEventHints(hints::add);

    @ParameterizedTest
    @EnumSource(value = AsyncEventType.class, names = {"PORT_ACTIVE", "PORT_ERR", "LID_CHANGE", "PKEY_CHANGE",
            "SM_CHANGE", "CLIENT_REREGISTER", "GID_CHANGE"})
    void aPortEventRescansThatDevice(AsyncEventType type) {
        events.asyncEvent(new AsyncEvent("mlx5_2", type, type.code(), OptionalInt.of(1), Instant.now()));

        assertThat(hints).singleElement().satisfies(h -> {
            assertThat(h.isFull()).isFalse();
            assertThat(h.rdmaDevices()).containsExactly("mlx5_2");
        });
        assertThat(events.received()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(value = AsyncEventType.class, names = "DEVICE_FATAL")
    void aFatalDeviceAsksForAFullScan(AsyncEventType type) {
        events.asyncEvent(new AsyncEvent("mlx5_2", type, type.code(), OptionalInt.empty(), Instant.now()));

        assertThat(hints).singleElement().satisfies(h -> assertThat(h.isFull()).isTrue());
    }

    /** Object events (no caller owns a CQ or QP yet) and unknown codes are counted, not scanned for. */
    @ParameterizedTest
    @EnumSource(value = AsyncEventType.class, names = {"CQ_ERR", "QP_FATAL", "SRQ_LIMIT_REACHED", "UNKNOWN"})
    void otherEventsAreCountedOnly(AsyncEventType type) {
        events.asyncEvent(new AsyncEvent("mlx5_2", type, type == AsyncEventType.UNKNOWN ? 42 : type.code(),
                OptionalInt.empty(), Instant.now()));

        assertThat(hints).isEmpty();
        assertThat(events.received()).isEqualTo(1);
    }
}
