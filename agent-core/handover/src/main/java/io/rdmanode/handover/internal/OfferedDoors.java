// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import io.rdmanode.agent.Handover.Door;
import io.rdmanode.posix.Posix;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The predecessor's side of the doors: those this process offers, by name, and those it lent to a successor
 * that has not said READY yet. A lent door's socket stays open here (a copy of its descriptor) until READY: if
 * the successor's session ends before that (it died while it started), the socket, still listening with what
 * connected meanwhile in its backlog, is offered as it is to the next instance instead of being lost.
 */
final class OfferedDoors implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OfferedDoors.class);

    private record Offer(String address, Door door) {
    }

    private record Lent(Object session, String name, String address, int fd) {
    }

    /** A door lent to a successor that died before READY: its socket, which nobody here accepts on. */
    private record OrphanedDoor(int fd) implements Door {
        @Override
        public void handedOver() {
            // nobody accepts on it here
        }
    }

    private final Posix posix;
    private final Map<String, Offer> offers = new ConcurrentHashMap<>();
    private final List<Lent> lent = new CopyOnWriteArrayList<>();

    OfferedDoors(Posix posix) {
        this.posix = posix;
    }

    /** Offers {@code door} under {@code name} until the returned handle is closed. */
    AutoCloseable offer(String name, String address, Door door) {
        Offer offer = new Offer(address, door);
        offers.put(name, offer);
        return () -> offers.remove(name, offer);
    }

    Set<String> names() {
        return offers.keySet();
    }

    /** The DOORS answer's fields: name, address, name, address... */
    String[] fields() {
        List<String> fields = new ArrayList<>();
        offers.forEach((name, offer) -> {
            fields.add(name);
            fields.add(offer.address());
        });
        return fields.toArray(String[]::new);
    }

    /**
     * Lends the door to the successor of {@code session}: a duplicate of its descriptor (the caller's to send and
     * close) once the door has stopped accepting; the door may close its own meanwhile.
     */
    HandoverListener.Taken lend(Object session, String name, String address) {
        Offer offer = offers.get(name);
        if (offer == null) {
            return new HandoverListener.Taken(-1, "no door " + name + " here");
        }
        if (!offer.address().equals(address)) {
            return new HandoverListener.Taken(-1, "door " + name + " is at " + offer.address());
        }
        int copy = posix.fcntl(offer.door().fd(), Posix.F_DUPFD_CLOEXEC, 0);
        lent.add(new Lent(session, name, address, posix.fcntl(copy, Posix.F_DUPFD_CLOEXEC, 0)));
        offers.remove(name, offer);
        if (offer.door() instanceof OrphanedDoor orphaned) {
            posix.close(orphaned.fd());
        }
        try {
            offer.door().handedOver();
        } catch (RuntimeException e) {
            LOG.error("door {} failed to stop accepting; handing it over anyway", name, e);
        }
        LOG.info("door {} at {} handed to a successor", name, address);
        return new HandoverListener.Taken(copy, null);
    }

    /** The successor of {@code session} serves what it took: the copies kept here go. */
    void kept(Object session) {
        for (Lent l : lent) {
            if (l.session() == session && lent.remove(l)) {
                posix.close(l.fd());
            }
        }
    }

    /** The session ended before READY: what it took is offered again, as the socket it is. */
    void returned(Object session) {
        for (Lent l : lent) {
            if (l.session() == session && lent.remove(l)) {
                LOG.error("the successor ended its handover session before it served door {} at {}: the socket stays"
                        + " listening (clients wait in its backlog) for the next instance to take", l.name(), l.address());
                offers.put(l.name(), new Offer(l.address(), new OrphanedDoor(l.fd())));
            }
        }
    }

    @Override
    public void close() {
        for (Lent l : lent) {
            posix.close(l.fd());
        }
        lent.clear();
        offers.values().stream().filter(o -> o.door() instanceof OrphanedDoor).forEach(o -> posix.close(o.door().fd()));
    }
}
