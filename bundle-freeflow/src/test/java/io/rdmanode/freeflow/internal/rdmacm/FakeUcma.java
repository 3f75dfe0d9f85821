// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * A kernel rdma_cm in miniature for tests: records every command as written (with the fd), answers CREATE_ID
 * with increasing ids, GET_EVENT from the events a test queues per fd (EAGAIN when none), everything else 0 or
 * what {@link #answer} says; eventfds are counters; poll never reports anything (tests drain by hand).
 */
final class FakeUcma implements Ucma {
    record Written(int fd, byte[] command) {
        ByteBuffer buffer() {
            return ByteBuffer.wrap(command).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    final List<Written> written = new ArrayList<>();
    final Map<Integer, ArrayDeque<byte[]>> kernelEvents = new HashMap<>();
    final Map<Integer, Integer> counts = new HashMap<>();
    final Set<Integer> open = new HashSet<>();
    final Set<Integer> closed = new HashSet<>();
    /** (fd, command) to an errno, or null for the default answer. */
    BiFunction<Integer, ByteBuffer, Integer> answer = (fd, c) -> null;
    int eventsReported = 3;
    /** INIT_QP_ATTR's answer ({@code struct ib_uverbs_qp_attr}), zeros when null. */
    byte[] qpAttr;
    private int nextFd = 100;
    private int nextId = 1;

    @Override
    public synchronized int open() {
        open.add(nextFd);
        return nextFd++;
    }

    @Override
    public synchronized int write(int fd, ByteBuffer command, int pointerSlot, ByteBuffer buffer) {
        byte[] b = new byte[command.capacity()];
        command.get(0, b);
        written.add(new Written(fd, b));
        Integer errno = answer.apply(fd, command);
        if (errno != null) {
            return errno;
        }
        switch (command.getInt(0)) {
            case UcmaCommand.CREATE_ID -> buffer.putInt(0, nextId++);
            case UcmaCommand.DESTROY_ID -> buffer.putInt(0, eventsReported);
            case UcmaCommand.INIT_QP_ATTR -> {
                if (qpAttr != null) {
                    buffer.put(0, qpAttr);
                }
            }
            case UcmaCommand.GET_EVENT -> {
                ArrayDeque<byte[]> q = kernelEvents.get(fd);
                if (q == null || q.isEmpty()) {
                    return 11;
                }
                buffer.put(0, q.poll());
            }
            default -> {
            }
        }
        return 0;
    }

    synchronized void event(int fd, long uid, int id, int type) {
        ByteBuffer e = ByteBuffer.allocate(UcmaCommand.EVENT_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        e.putLong(0, uid).putInt(8, id).putInt(12, type);
        kernelEvents.computeIfAbsent(fd, k -> new ArrayDeque<>()).add(e.array());
    }

    @Override
    public short[] poll(int[] fds, int timeoutMs) {
        try {
            Thread.sleep(Math.min(timeoutMs, 20));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new short[fds.length];
    }

    @Override
    public synchronized int eventfd() {
        open.add(nextFd);
        return nextFd++;
    }

    @Override
    public synchronized void count(int eventfd, int delta) {
        counts.merge(eventfd, delta, Integer::sum);
        if (counts.get(eventfd) < 0) {
            counts.put(eventfd, 0);
        }
    }

    @Override
    public synchronized void close(int fd) {
        closed.add(fd);
    }
}
