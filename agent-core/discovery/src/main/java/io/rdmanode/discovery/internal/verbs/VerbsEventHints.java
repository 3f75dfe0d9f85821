// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.verbs.AsyncEvent;
import io.rdmanode.verbs.AsyncEventListener;
import io.rdmanode.verbs.AsyncEventType;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns verbs async events into scans of the device they are about. An InfiniBand port has no netdev, so its
 * state changes raise no uevent and no rtnetlink message: without these events they would wait for the
 * periodic rescan. Port events re-read the device; {@code DEVICE_FATAL} asks for a full scan (the device is
 * going, and with it its PCI function's view). Runs on the verbs event thread: it only hands over hints.
 */
public final class VerbsEventHints implements AsyncEventListener {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsEventHints.class);

    private final Consumer<ScanHints> hints;
    private final LongAdder received = new LongAdder();

    public VerbsEventHints(Consumer<ScanHints> hints) {
        this.hints = hints;
    }

    @Override
    public void asyncEvent(AsyncEvent event) {
        received.increment();
        if (event.type() == AsyncEventType.DEVICE_FATAL) {
            LOG.warn("verbs DEVICE_FATAL on {}: rescanning", event.device());
            hints.accept(ScanHints.fullScan().rdmaDevice(event.device()));
        } else if (event.type().isPortEvent()) {
            LOG.debug("verbs event {}: rescanning the device", event);
            hints.accept(new ScanHints().rdmaDevice(event.device()));
        }
    }

    /** Async events received since start, of any type. */
    public long received() {
        return received.sum();
    }
}
