// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.osgi.annotation.versioning.ProviderType;

/**
 * libibverbs, loaded once. Queries open a device context, ask, and close it again before returning; calls are
 * serialised (libibverbs is thread-safe, the bookkeeping here is kept simple). Async events are read on one
 * named thread from one long-lived context per device, opened while at least one listener is registered.
 *
 * <p>Every query throws {@link VerbsException} naming the call and device when it fails, and when the library
 * could not be loaded ({@link #unavailableReason()}).
 *
 * @since 1.0
 */
@ProviderType
public interface RdmaVerbs {

    /** The soname the verbs bundle loads: rdma-core's libibverbs, ABI 1. */
    String LIBRARY = "libibverbs.so.1";

    /**
     * An instance of one's own, outside OSGi (the bundle's {@code internal.LibibverbsRdmaVerbs.load}, for tests and
     * tools on a plain class path); close it to stop its event thread and close its contexts.
     */
    interface Owned extends RdmaVerbs, AutoCloseable {
        @Override
        void close();
    }

    /**
     * Why the library could not be loaded or bound ({@code "libibverbs.so.1 not found: cannot open shared object
     * file: No such file or directory"}); empty when calls can be made.
     */
    Optional<String> unavailableReason();

    /** Device names as {@code ibv_get_device_list} returns them; empty (not an error) with no device. */
    List<String> deviceNames();

    /** Opens, queries and closes every device libibverbs lists. */
    IbvDeviceListing devices();

    /**
     * Like {@link #devices()}, but a device for which {@code cached} has an answer is taken from there instead of
     * being opened again (incremental updates re-query only what changed).
     */
    IbvDeviceListing devices(Function<String, Optional<IbvDevice>> cached);

    /** Device contexts opened by queries so far (diagnostics: an incremental update should open few). */
    long contextsOpened();

    /** Whether GID types come from {@code _ibv_query_gid_table} (false on rdma-core before v32). */
    boolean gidTypesAvailable();

    /**
     * From now on uses {@code ibv_query_gid}, which gives no GID types, as on rdma-core before v32: tests of that
     * path on a newer rdma-core.
     */
    void useLegacyGidQuery();

    /** Starts delivering every device's async events to {@code listener} (see {@link AsyncEventListener}). */
    void addAsyncEventListener(AsyncEventListener listener);

    void removeAsyncEventListener(AsyncEventListener listener);

    /**
     * Asks the event thread to list the devices again now (a device was added) rather than at its next periodic
     * check; returns at once. Removed devices need no call: their {@code DEVICE_FATAL} closes their context.
     */
    void refreshAsyncEventDevices();

    /** Devices whose async events are being read right now (empty without listeners). */
    Set<String> asyncEventDevices();

    /** Async events received since load, over all devices. */
    long asyncEventsReceived();
}
