// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.stub.StreamObserver;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.internal.v1beta1.ListAndWatchResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ListAndWatchStreamsTest {

    /** A stream that records what it got and can be made to fail like a cancelled call. */
    static final class Recording implements StreamObserver<ListAndWatchResponse> {
        final List<ListAndWatchResponse> got = new ArrayList<>();
        boolean completed;
        boolean cancelled;

        @Override
        public void onNext(ListAndWatchResponse value) {
            if (cancelled) {
                throw new IllegalStateException("call already cancelled");
            }
            got.add(value);
        }

        @Override
        public void onError(Throwable t) {
        }

        @Override
        public void onCompleted() {
            completed = true;
        }
    }

    private static ListAndWatchResponse list(int n) {
        List<Device> devices = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            devices.add(new Device("d-" + i, true, List.of()));
        }
        return ProtoMapping.devices(devices);
    }

    @Test
    void sendsTheCurrentListOnOpenThenOnlyChanges() {
        ListAndWatchStreams streams = new ListAndWatchStreams();
        Recording a = new Recording();
        streams.open(a, list(1));

        assertThat(streams.push(list(1))).isZero();
        assertThat(streams.push(list(2))).isEqualTo(1);
        assertThat(a.got).containsExactly(list(1), list(2));
    }

    @Test
    void dropsACancelledStreamAndKeepsServingTheOthers() {
        ListAndWatchStreams streams = new ListAndWatchStreams();
        Recording a = new Recording();
        Recording b = new Recording();
        streams.open(a, list(1));
        streams.open(b, list(1));
        a.cancelled = true;

        assertThat(streams.push(list(3))).isEqualTo(1);
        assertThat(streams.size()).isEqualTo(1);
        assertThat(b.got).last().isEqualTo(list(3));
    }

    @Test
    void completesEveryStreamAndAnyOpenedAfterwards() {
        ListAndWatchStreams streams = new ListAndWatchStreams();
        Recording a = new Recording();
        streams.open(a, list(1));

        streams.completeAll();
        Recording late = new Recording();
        streams.open(late, list(1));

        assertThat(a.completed).isTrue();
        assertThat(late.completed).isTrue();
        assertThat(late.got).isEmpty();
        assertThat(streams.push(list(2))).isZero();
    }
}
