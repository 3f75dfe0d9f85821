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
 * the successor's session ends before that, the socket, still listening with what connected meanwhile in its
 * backlog, is offered as it is to the next instance instead of being lost; once the successor's process is known
 * to be gone, the door that lent it accepts on it again ({@link Door#takeBack}).
 */
final class OfferedDoors implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OfferedDoors.class);

    private record Offer(String address, Door door) {
    }

    private record Lent(Object session, String name, String address, int fd, Door door) {
    }

    /**
     * A door lent to a successor that ended its session before READY: its socket, which nobody here accepts on,
     * and the door it was, which may take it back.
     */
    private record OrphanedDoor(int fd, Object session, Door original) implements Door {
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
    synchronized HandoverListener.Taken lend(Object session, String name, String address) {
        Offer offer = offers.get(name);
        if (offer == null) {
            return new HandoverListener.Taken(-1, "no door " + name + " here");
        }
        if (!offer.address().equals(address)) {
            return new HandoverListener.Taken(-1, "door " + name + " is at " + offer.address());
        }
        int copy;
        try {
            copy = posix.fcntl(offer.door().fd(), Posix.F_DUPFD_CLOEXEC, 0);
        } catch (RuntimeException e) {
            // The door's descriptor is not what it says (a bug): refused, and the door goes on serving here.
            LOG.error("door {} cannot be lent: its descriptor {} is unusable: {}", name, offer.door().fd(), e.toString());
            return new HandoverListener.Taken(-1, "door " + name + " cannot be lent: " + e.getMessage());
        }
        Door original = offer.door() instanceof OrphanedDoor orphaned ? orphaned.original() : offer.door();
        lent.add(new Lent(session, name, address, posix.fcntl(copy, Posix.F_DUPFD_CLOEXEC, 0), original));
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
    synchronized void kept(Object session) {
        for (Lent l : lent) {
            if (l.session() == session && lent.remove(l)) {
                posix.close(l.fd());
            }
        }
    }

    /** The session ended before READY: what it took is offered again, as the socket it is. */
    synchronized boolean returned(Object session) {
        boolean any = false;
        for (Lent l : lent) {
            if (l.session() == session && lent.remove(l)) {
                if (closed) {
                    posix.close(l.fd());
                    continue;
                }
                LOG.warn("the successor ended its handover session before it served door {} at {}: the socket stays"
                        + " listening (clients wait in its backlog) for the next instance to take, or for this one"
                        + " once the successor is gone", l.name(), l.address());
                offers.put(l.name(), new Offer(l.address(), new OrphanedDoor(l.fd(), session, l.door())));
                any = true;
            }
        }
        return any;
    }

    /**
     * The successor of {@code session} is gone: each door it left orphaned (and no later instance took) accepts
     * here again if it can. Returns the names of the doors taken back.
     */
    synchronized List<String> takeBack(Object session) {
        List<String> back = new ArrayList<>();
        offers.forEach((name, offer) -> {
            if (!(offer.door() instanceof OrphanedDoor orphaned) || orphaned.session() != session) {
                return;
            }
            boolean resumed;
            try {
                resumed = orphaned.original().takeBack(posix.fcntl(orphaned.fd(), Posix.F_DUPFD_CLOEXEC, 0));
            } catch (RuntimeException e) {
                LOG.error("door {} failed to accept again; its socket stays listening for the next instance", name, e);
                resumed = false;
            }
            if (resumed) {
                offers.put(name, new Offer(offer.address(), orphaned.original()));
                posix.close(orphaned.fd());
                back.add(name);
            } else {
                LOG.error("door {} at {} cannot accept here again: its socket stays listening, unserved, for the next"
                        + " instance to take", name, offer.address());
            }
        });
        return back;
    }

    /** Closes the copies kept here; again, or a session ending afterwards, closes nothing twice. */
    @Override
    public synchronized void close() {
        closed = true;
        for (Lent l : lent) {
            posix.close(l.fd());
        }
        lent.clear();
        offers.forEach((name, offer) -> {
            if (offer.door() instanceof OrphanedDoor orphaned && offers.remove(name, offer)) {
                posix.close(orphaned.fd());
            }
        });
    }

    private boolean closed;
}
