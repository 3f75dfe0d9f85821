// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.rdmanode.kubelet.internal.v1beta1.ListAndWatchResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * The open {@code ListAndWatch} streams of one resource and the last list sent. Every send happens under this
 * object's lock: a gRPC stream must not see concurrent {@code onNext} calls, and an update must never overtake
 * the initial list of a stream that is just opening.
 */
final class ListAndWatchStreams {

    private final List<StreamObserver<ListAndWatchResponse>> streams = new ArrayList<>();
    private ListAndWatchResponse last;
    private boolean closed;
    private final Runnable peerLetGo;

    /** @param peerLetGo runs (outside the lock) when the peer cancelled the last open stream */
    ListAndWatchStreams(Runnable peerLetGo) {
        this.peerLetGo = peerLetGo;
    }

    ListAndWatchStreams() {
        this(() -> { });
    }

    /** Adds a stream and sends it {@code current} (kubelet expects the full list at once). */
    synchronized void open(StreamObserver<ListAndWatchResponse> stream, ListAndWatchResponse current) {
        if (closed) {
            stream.onCompleted();
            return;
        }
        if (stream instanceof ServerCallStreamObserver<ListAndWatchResponse> call) {
            call.setOnCancelHandler(() -> {
                if (remove(stream)) {
                    peerLetGo.run();
                }
            });
        }
        last = current;
        streams.add(stream);
        stream.onNext(current);
    }

    /** Sends {@code next} to every stream unless it equals the last list sent; returns the number of sends. */
    synchronized int push(ListAndWatchResponse next) {
        if (closed || next.equals(last)) {
            return 0;
        }
        last = next;
        int sent = 0;
        for (StreamObserver<ListAndWatchResponse> s : List.copyOf(streams)) {
            try {
                s.onNext(next);
                sent++;
            } catch (RuntimeException e) {      // cancelled between the check and the send: kubelet went away
                streams.remove(s);
            }
        }
        return sent;
    }

    synchronized int size() {
        return streams.size();
    }

    /** Ends every stream; later {@link #open} calls complete their stream at once. */
    synchronized void completeAll() {
        closed = true;
        for (StreamObserver<ListAndWatchResponse> s : streams) {
            try {
                s.onCompleted();
            } catch (RuntimeException e) {
                // already cancelled by the peer; nothing left to end
            }
        }
        streams.clear();
    }

    /** Returns true when that was the last stream, removed by its peer while not closing. */
    private synchronized boolean remove(StreamObserver<ListAndWatchResponse> stream) {
        return streams.remove(stream) && streams.isEmpty() && !closed;
    }
}
