// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs.internal;

import io.rdmanode.verbs.AsyncEventListener;
import io.rdmanode.verbs.IbvDevice;
import io.rdmanode.verbs.IbvDeviceListing;
import io.rdmanode.verbs.RdmaVerbs;
import io.rdmanode.verbs.VerbsException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import jnr.ffi.LibraryLoader;

/**
 * {@link RdmaVerbs} over jnr-ffi. Queries are serialised on this object; the async-event thread
 * ({@link AsyncEventLoop}) has its own contexts and runs while at least one listener is registered.
 */
public final class LibibverbsRdmaVerbs implements RdmaVerbs.Owned {

    private final String library;
    private final DeviceQueries queries;           // null when the library could not be loaded
    private final LibIbverbs lib;
    private final String loadFailure;
    private final LongAdder eventsReceived = new LongAdder();
    private AsyncEventLoop events;                 // guarded by this

    private LibibverbsRdmaVerbs(String library, LibIbverbs lib, String loadFailure) {
        this.library = library;
        this.lib = lib;
        this.queries = lib == null ? null : new DeviceQueries(lib);
        this.loadFailure = loadFailure;
    }

    /** Never throws: a library that cannot be loaded or bound becomes {@link #unavailableReason()}. */
    public static LibibverbsRdmaVerbs load(String library) {
        try {
            LibIbverbs lib = LibraryLoader.create(LibIbverbs.class).failImmediately().library(library).load();
            return new LibibverbsRdmaVerbs(library, lib, null);
        } catch (UnsatisfiedLinkError e) {
            // jnr's message: dlerror() ("<library>: cannot open ..."), then lines with the search path.
            String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
            return new LibibverbsRdmaVerbs(library, null, library + " not found: "
                    + (why.startsWith(library + ": ") ? why.substring(library.length() + 2) : why));
        } catch (RuntimeException | LinkageError e) {
            return new LibibverbsRdmaVerbs(library, null, "cannot bind " + library + " through jnr-ffi: " + e);
        }
    }

    public String library() {
        return library;
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.ofNullable(loadFailure);
    }

    private DeviceQueries queries() {
        if (queries == null) {
            throw new VerbsException(loadFailure);
        }
        return queries;
    }

    @Override
    public synchronized List<String> deviceNames() {
        return List.copyOf(queries().deviceNames());
    }

    @Override
    public synchronized IbvDeviceListing devices() {
        return queries().devices();
    }

    @Override
    public synchronized IbvDeviceListing devices(Function<String, Optional<IbvDevice>> cached) {
        return queries().devices(cached);
    }

    @Override
    public synchronized long contextsOpened() {
        return queries == null ? 0 : queries.contextsOpened();
    }

    @Override
    public synchronized boolean gidTypesAvailable() {
        return queries != null && queries.gidTypesAvailable();
    }

    @Override
    public synchronized void useLegacyGidQuery() {
        queries().useLegacyGidQuery();
    }

    /** {@code strerror(3)} and the number: "Permission denied (errno 13)". */
    synchronized String describe(int errno) {
        return queries().describe(errno);
    }

    @Override
    public synchronized void addAsyncEventListener(AsyncEventListener listener) {
        queries();
        if (events == null) {
            events = new AsyncEventLoop(lib, queries, eventsReceived);
        }
        events.addListener(listener);
    }

    @Override
    public synchronized void removeAsyncEventListener(AsyncEventListener listener) {
        if (events != null && events.removeListener(listener)) {
            events.close();
            events = null;
        }
    }

    @Override
    public synchronized void refreshAsyncEventDevices() {
        if (events != null) {
            events.refresh();
        }
    }

    @Override
    public synchronized Set<String> asyncEventDevices() {
        return events == null ? Set.of() : events.devices();
    }

    @Override
    public long asyncEventsReceived() {
        return eventsReceived.sum();
    }

    /** The event thread's failure, if it stopped on one (health). */
    public synchronized Optional<String> asyncEventFailure() {
        return events == null ? Optional.empty() : events.failure();
    }

    @Override
    public synchronized void close() {
        if (events != null) {
            events.close();
            events = null;
        }
    }
}
