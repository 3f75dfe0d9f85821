// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Another client process (another tenant: the router tells tenants apart by the peer's pid), run by the tests as
 * a child JVM. {@code idle <socket> <n>}: opens n connections, sends nothing, prints {@code ready <n>} and holds
 * them until stdin closes. {@code qp <socket> <shm>}: sets up two connected RC QPs, then waits for a CQ event on a
 * completion channel after a send, and prints {@code ok}. {@code async <socket> <shm>}: asks for its async fd,
 * makes a PD, a CQ, a QP and an SRQ (the same handles another tenant's first objects get), prints {@code ready}, then
 * for every line read from stdin prints {@code events <element>/<type>,...} of the async events queued for it.
 */
public final class TenantProcess {
    private TenantProcess() {
    }

    public static void main(String[] args) throws Exception {
        Path socket = Path.of(args[1]);
        if (args[0].equals("idle")) {
            int n = Integer.parseInt(args[2]);
            List<SocketChannel> held = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                held.add(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
            }
            System.out.println("ready " + held.size());
            System.out.flush();
            System.in.read();
            return;
        }
        if (args[0].equals("truncate")) {
            truncateOwnMailbox(new FfClient(socket, Path.of(args[2]), 9), Path.of(args[2]));
            return;
        }
        if (args[0].equals("async")) {
            asyncEvents(new FfClient(socket, Path.of(args[2]), 9));
            return;
        }
        qpAndEvent(new FfClient(socket, Path.of(args[2]), 9));
        System.out.println("ok");
    }

    /**
     * {@code truncate <socket> <shm>}: makes a CQ, polls it through its mailbox for a second (the router's poller
     * runs hot and compiled), then truncates the mailbox file to nothing under the router's mapping, prints
     * {@code truncated} and waits for stdin to close. It never touches the mailbox again (its own mapping faults too).
     */
    private static void truncateOwnMailbox(FfClient c, Path shm) throws IOException {
        java.util.Set<Path> before;
        try (java.util.stream.Stream<Path> l = java.nio.file.Files.list(shm)) {
            before = l.collect(java.util.stream.Collectors.toSet());
        }
        c.allocPd();
        Cq cq = c.createCq(16);
        Path mailbox;
        try (java.util.stream.Stream<Path> l = java.nio.file.Files.list(shm)) {
            mailbox = l.filter(f -> !before.contains(f)).findFirst().orElseThrow();
        }
        long end = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < end) {
            c.pollCq(cq, 4);
        }
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(mailbox,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
        System.out.println("truncated");
        System.out.flush();
        System.in.read();
    }

    private static void asyncEvents(FfClient c) throws IOException {
        if (c.asyncFd()[0] != 0) {
            throw new IOException("FFR_GET_ASYNC_FD refused");
        }
        int pd = c.allocPd();
        Cq cq = c.createCq(16);
        c.createQp(pd, cq, cq, 8, 1);
        c.createSrq(pd, 8, 1);
        System.out.println("ready");
        System.out.flush();
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
        while (in.readLine() != null) {
            List<String> got = new ArrayList<>();
            for (FfClient.AsyncEvent e : c.asyncEvents()) {
                got.add(e.element() + "/" + e.type());
            }
            System.out.println("events " + String.join(",", got));
            System.out.flush();
        }
    }

    /** QP setup, a send, and its completion's event through a completion channel. */
    static void qpAndEvent(FfClient c) throws IOException {
        int ch = c.createCompChannel();
        if (ch < 0) {
            throw new IOException("completion channel refused");
        }
        int pd = c.allocPd();
        Cq scq = c.createCq(16, ch);
        Cq rcq = c.createCq(16);
        Qp a = c.createQp(pd, scq, rcq, 8, 1);
        Qp b = c.createQp(pd, rcq, rcq, 8, 1);
        Mr mr = c.regMr(pd, 4096, 7);
        c.connect(a, b.qpn(), 7, 1, 7);
        c.connect(b, a.qpn(), 7, 1, 7);
        c.postRecv(b, 1, new Sg(0, 64, mr.lkey()));
        if (c.reqNotifyCq(scq) != 0) {
            throw new IOException("REQ_NOTIFY_CQ failed");
        }
        try (SocketChannel events = c.open()) {
            c.sendGetCqEvent(events, ch);
            c.postSend(a, List.of(Wr.send(2, new Sg(64, 64, mr.lkey()))));
            int[] ev = FfClient.readCqEvent(events);
            if (ev[0] != scq.handle()) {
                throw new IOException("event for CQ " + ev[0] + ", expected " + scq.handle());
            }
        }
    }
}
