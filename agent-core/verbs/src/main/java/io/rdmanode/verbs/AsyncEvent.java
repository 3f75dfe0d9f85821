// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs;

import java.time.Instant;
import java.util.OptionalInt;

/**
 * One asynchronous event of a device, already acknowledged ({@code ibv_ack_async_event}).
 *
 * @param device     the libibverbs device name
 * @param type       the event type; {@link AsyncEventType#UNKNOWN} for a value this API does not know
 * @param code       the raw {@code enum ibv_event_type} value
 * @param port       the port number for port events ({@link AsyncEventType#isPortEvent()}), else empty
 * @param receivedAt when {@code ibv_get_async_event} returned it
 * @since 1.0
 */
public record AsyncEvent(String device, AsyncEventType type, int code, OptionalInt port, Instant receivedAt) {

    @Override
    public String toString() {
        return device + (port.isPresent() ? " port " + port.getAsInt() : "") + " " + type
                + (type == AsyncEventType.UNKNOWN ? "(" + code + ")" : "");
    }
}
