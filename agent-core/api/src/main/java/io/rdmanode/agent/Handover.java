// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import java.util.OptionalInt;
import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A restart that no client notices: an instance started with the state directory of a running one (the
 * predecessor) takes over from it, the way Envoy's hot restart and HAProxy's seamless reload do. The listening
 * sockets (the HTTP endpoint, the CNI socket, the Freeflow control socket) pass from the predecessor to the
 * successor as descriptors over a Unix socket in the state directory ({@code SCM_RIGHTS}), so none is ever
 * unbound and exactly one process accepts on each at any time; the state directory has one writer at a time,
 * passed when the successor is ready. Offered as a service by the launcher, in both processes.
 *
 * <p>A component that serves a door asks {@link #take} before it binds (in the successor that returns the
 * predecessor's descriptor; on a first start it is empty and the component binds as before), and {@link #offer}s
 * the door once it accepts, so that a later successor can take it from this process.
 *
 * @since 1.4
 */
@ProviderType
public interface Handover {

    /** Well-known door names. */
    String HTTP = "http";
    String CNI = "cni";
    String FREEFLOW = "freeflow";

    /** A listening socket this process accepts on and can hand to a successor. */
    @ConsumerType
    interface Door {

        /** The listening descriptor, open. */
        int fd();

        /**
         * The successor takes this door: stop accepting on it before returning (connections accepted already are
         * finished as usual; what waits in the listen backlog is the successor's), and from now on never unlink
         * the socket's path nor close anything but this process's own descriptor. Called at most once. The
         * successor's descriptor is a duplicate made before this call, so the door may close its own here (never
         * with {@code shutdown(2)}, which would act on the socket the successor accepts on).
         */
        void handedOver();

        /**
         * The successor this door was handed to died before it served every door (its handover session ended
         * without READY and its process is gone): this process is still the state directory's writer, and accepts
         * on the socket again through {@code fd}, a descriptor of that same listening socket, consumed in every
         * case (the door's own when this returns true, closed when it returns false). What connected while nobody
         * accepted waits in the backlog and is served. False (the default) leaves the socket listening, unserved,
         * for the next instance to take.
         *
         * @since 1.8
         */
        default boolean takeBack(int fd) {
            return false;
        }
    }

    /**
     * The predecessor's listening descriptor for {@code name}, when a predecessor serves that door on the same
     * {@code address}: it has stopped accepting on it, and the caller owns the descriptor and accepts on it at
     * once. Empty on a first start, when the predecessor has no such door, or listens elsewhere (an edited
     * address is bound anew).
     *
     * @param address what the door listens on, as the component names it ({@code /run/rdma/cni.sock},
     *                {@code 0.0.0.0:9456}); compared as a string, a socket path with its directory's symlinks
     *                resolved
     */
    OptionalInt take(String name, String address);

    /**
     * Offers a door to a future successor until the returned handle is closed (the component stops serving it).
     * Offering a name again replaces the previous door.
     */
    AutoCloseable offer(String name, String address, Door door);

    /**
     * True once this process has handed the state directory to a successor: from then on it allocates nothing,
     * writes nothing there, and removes no socket, CDI spec or device-info file on stop (they are the
     * successor's).
     */
    boolean handedOver();

    /**
     * True while this process is the state directory's one writer: from its start on a first start, from the
     * predecessor's confirmation when it takes over, until it hands over. An instance still taking over (or
     * waiting behind one that is) sees the state directory as the predecessor left it a moment ago: it must not
     * remove a file of a device it believes released, since the predecessor may have just allocated it.
     *
     * @since 1.5
     */
    default boolean writer() {
        return !handedOver();
    }

    /**
     * True when this process took over from a running predecessor (whether or not it confirmed), false on a first
     * start: only then can Allocates the predecessor served late be missing from what this process knows.
     *
     * @since 1.5
     */
    default boolean tookOver() {
        return false;
    }

    /**
     * Runs {@code action} once when this process hands the state directory over (at once, on the caller's
     * thread, if it has already); the returned handle withdraws it.
     */
    AutoCloseable onHandedOver(Runnable action);

    /**
     * Runs {@code action} each time an instance that began to take over from this one died before it said READY
     * (its handover session ended, its process gone): this process is still the writer, its doors were taken back,
     * and what the dead instance changed outside the state directory (kubelet's endpoints, now its dead sockets)
     * must be redone here. The returned handle withdraws it.
     *
     * @since 1.8
     */
    default AutoCloseable onSuccessorLost(Runnable action) {
        return () -> { };
    }
}
