// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import io.rdmanode.posix.FdLines;
import io.rdmanode.posix.Posix;

/**
 * The handover protocol, version 1, on {@code <stateDir>/handover.sock} (mode 0600), framed by {@link FdLines}.
 * The successor asks, the predecessor answers each request with one line:
 * <pre>
 * HELLO 1 &lt;pid&gt;            -&gt; HELLO 1 &lt;pid&gt;
 * DOORS                     -&gt; DOORS [&lt;name&gt; &lt;address&gt;]...    (the doors offered now)
 * SUCCESSOR [&lt;ms&gt;]          -&gt; SUCCESSOR                        (an instance taking over, READY within ms)
 * TAKE &lt;name&gt; &lt;address&gt;    -&gt; FD (+ the listening descriptor as SCM_RIGHTS) | NONE &lt;why&gt;
 * READY                     -&gt; RELEASED                         (handed over; state.lock released)
 * </pre>
 * (fields apart by a tab). SUCCESSOR tells a session that will take over from the ones that only look
 * ({@code status}, the launcher's check): only a successor's death makes the predecessor take its doors back and
 * register its pools again; a predecessor of an older build answers it with NONE, which changes nothing. The
 * optional field is the successor's ready timeout, after which its own timer says READY whatever it serves: a
 * successor silent well past it no longer runs (SIGSTOPped, wedged) yet holds the doors it took, and the
 * predecessor kills it and takes them back ({@link HandoverListener#READY_GRACE_MILLIS}). An older predecessor
 * ignores the field; an older successor sends none and is waited for as before. Before
 * it answers FD the predecessor has stopped accepting on that door; after RELEASED it has run its onHandedOver
 * actions and let go of the writer lock, which the successor takes next. The
 * launcher's pre-start check speaks the first two requests through the JDK (it finds a predecessor and the HTTP
 * address it serves before the framework starts).
 */
final class Protocol {

    static final String VERSION = "1";
    static final String HELLO = "HELLO";
    static final String DOORS = "DOORS";
    static final String SUCCESSOR = "SUCCESSOR";
    static final String TAKE = "TAKE";
    static final String FD = "FD";
    static final String NONE = "NONE";
    static final String READY = "READY";
    static final String RELEASED = "RELEASED";
    static final String SOCKET = "handover.sock";
    static final String LOCK = "state.lock";
    /**
     * Held by an instance from its start until it holds {@link #LOCK} and listens on {@link #SOCKET}: instances
     * started at once (or one started while another takes over from a predecessor that dies) queue on it, so each
     * finds the one before it listening and becomes its successor, never a second writer beside it.
     */
    static final String START_LOCK = "start.lock";

    private Protocol() {
    }

    /**
     * Whether the peer has closed its end (it stopped, or died): neither side writes unasked, so between requests
     * a non-blocking peek finds either nothing (still there) or the end of the stream.
     */
    static boolean peerClosed(Posix posix, int fd) {
        try {
            return posix.recv(fd, new byte[1], 1, Posix.MSG_PEEK | Posix.MSG_DONTWAIT) == 0;
        } catch (io.rdmanode.posix.PosixException e) {
            return e.errno() != io.rdmanode.posix.Errno.EAGAIN && e.errno() != io.rdmanode.posix.Errno.EINTR;
        } catch (RuntimeException closed) {
            return true;
        }
    }

    /** {@code SO_RCVTIMEO}: a peer that stops answering turns into an error instead of a hang. */
    static void receiveTimeout(Posix posix, int fd, long millis) {
        new FdLines(posix, fd).receiveTimeout(millis);
    }
}
