// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/** Counters the collector reads at scrape time. */
final class CniStats {

    final Map<String, LongAdder> requests = new ConcurrentHashMap<>(); // "command|result"
    final Map<String, LongAdder> nanos = new ConcurrentHashMap<>(); // command
    final Map<String, LongAdder> reconciled = new ConcurrentHashMap<>(); // action
    /** Connections to the CNI socket open now (reading, being answered or writing the answer). */
    final AtomicInteger connectionsOpen = new AtomicInteger();
    /** Connections closed by the server before their answer, by reason (connection_limit, buffer_limit). */
    final Map<String, LongAdder> connectionsRefused = new ConcurrentHashMap<>();
    /** Connections closed because they had not sent their whole request within cni.requestTimeout. */
    final LongAdder connectionsTimedOut = new LongAdder();
    /** Requests refused before the handler saw them, by reason (size, malformed). */
    final Map<String, LongAdder> requestsRefused = new ConcurrentHashMap<>();

    /** The label values a command can take: a client-chosen CNI_COMMAND must not add metric series. */
    static final Set<String> COMMANDS = Set.of("ADD", "DEL", "CHECK", "STATUS", "GC", "VERSION");

    void request(String command, String result, long elapsedNanos) {
        String c = command.isEmpty() ? "none" : COMMANDS.contains(command) ? command : "other";
        requests.computeIfAbsent(c + "|" + result, k -> new LongAdder()).increment();
        nanos.computeIfAbsent(c, k -> new LongAdder()).add(elapsedNanos);
    }

    void reconciled(String action) {
        reconciled.computeIfAbsent(action, k -> new LongAdder()).increment();
    }

    void connectionRefused(String reason) {
        connectionsRefused.computeIfAbsent(reason, k -> new LongAdder()).increment();
    }

    void requestRefused(String reason) {
        requestsRefused.computeIfAbsent(reason, k -> new LongAdder()).increment();
    }
}
