// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.mapping;

import io.rdmanode.agent.RefusalLog;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inter-host MR mapping of the genuine Freeflow routers, wire-compatible with them: a UDP server on port 11232
 * that stores what the routers of the configured hosts announce ({@link RemoteMrTable}) and acknowledges each
 * announcement, and {@link #announce}, which sends this router's mapping to every configured host and waits for
 * their acknowledgements. Unlike the genuine routers it accepts announcements only from the configured hosts (any
 * other sender is ignored and counted: a mapping decides where a remote NIC's WRITE lands), resends what is not
 * acknowledged, and gives up after a bound instead of blocking the verb forever.
 */
public final class MrMappingService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MrMappingService.class);
    /** Announcements in flight at once (each holds a socket and a control worker until acknowledged). */
    private static final int MAX_ANNOUNCING = 16;

    private final DatagramChannel server;
    private final Thread receiver;
    private final RemoteMrTable table = new RemoteMrTable();
    private final RefusalLog refusals = new RefusalLog(LOG, Duration.ofMinutes(1));
    private final Semaphore announcing = new Semaphore(MAX_ANNOUNCING);
    private volatile MappingSettings settings;
    private volatile Set<InetAddress> hosts;

    final LongAdder received = new LongAdder();
    final LongAdder unknownSenders = new LongAdder();
    final LongAdder malformed = new LongAdder();
    final LongAdder announced = new LongAdder();
    final LongAdder unacknowledged = new LongAdder();
    final LongAdder resent = new LongAdder();

    /** What one announcement reached. */
    public record Announcement(List<InetAddress> acknowledged, List<InetAddress> unacknowledged) {
        public boolean complete() {
            return unacknowledged.isEmpty();
        }
    }

    private MrMappingService(MappingSettings s) throws IOException {
        this.settings = s;
        this.hosts = Set.copyOf(s.hosts());
        this.server = DatagramChannel.open();
        try {
            server.bind(new InetSocketAddress(s.bind(), s.port()));
        } catch (IOException e) {
            server.close();
            throw new IOException("freeflow MR mapping: cannot bind UDP " + s.bind().getHostAddress() + ":" + s.port()
                    + " (freeflow.mappingBind, freeflow.mappingPort): " + e.getMessage(), e);
        }
        this.receiver = new Thread(this::receive, "freeflow-mapping");
        receiver.setDaemon(true);
    }

    /** Binds the UDP port and starts serving. */
    public static MrMappingService start(MappingSettings s) throws IOException {
        MrMappingService m = new MrMappingService(s);
        m.receiver.start();
        LOG.info("freeflow MR mapping on udp {}:{} with hosts {}", s.bind().getHostAddress(), s.port(), names(s.hosts()));
        return m;
    }

    /** A new host list (live reload); a host that left the list is forgotten with what it announced. */
    public void hosts(MappingSettings s) {
        Set<InetAddress> next = Set.copyOf(s.hosts());
        for (InetAddress gone : hosts) {
            if (!next.contains(gone)) {
                table.forget(gone);
            }
        }
        this.settings = s;
        this.hosts = next;
        LOG.info("freeflow MR mapping hosts now {}", names(s.hosts()));
    }

    public MappingSettings settings() {
        return settings;
    }

    public RemoteMrTable table() {
        return table;
    }

    /**
     * A WRITE or READ's remote address for the remote NIC (see {@link RemoteMrTable#translate(int, long, InetAddress,
     * boolean)}): {@code peer} is the address the QP's destination GID carries, null when it carries none.
     */
    public OptionalLong translate(int rkey, long remoteAddr, InetAddress peer) {
        boolean listed = peer != null && hosts.contains(peer);
        OptionalLong t = table.translate(rkey, remoteAddr, peer, listed);
        if (t.isEmpty() && !listed && table.announcers(rkey) > 1) {
            refusals.warn("ambiguous", "freeflow: rkey {} was announced by several hosts and the QP's peer {} is none of"
                    + " them: the WRITE/READ address is left as the client gave it (list the hosts by the addresses"
                    + " their RDMA devices use)", Integer.toUnsignedString(rkey),
                    peer == null ? "(no IP address in its GID)" : peer.getHostAddress());
        }
        return t;
    }

    /** The bound UDP address (tests bind port 0). */
    public InetSocketAddress address() throws IOException {
        return (InetSocketAddress) server.getLocalAddress();
    }

    /**
     * Sends {@code m} to every configured host and waits for each one's {@code ack-<key>}: resent to the hosts that
     * have not answered after each acknowledgement timeout, at most {@code attempts} times.
     */
    public Announcement announce(MrMappingDatagram m) throws IOException, InterruptedException {
        MappingSettings s = settings;
        Set<InetAddress> waiting = new LinkedHashSet<>(s.hosts());
        List<InetAddress> acked = new ArrayList<>();
        if (!announcing.tryAcquire(s.ackTimeoutMillis() * s.attempts(), TimeUnit.MILLISECONDS)) {
            announced.increment();
            unacknowledged.increment();
            return new Announcement(acked, List.copyOf(waiting));
        }
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(s.bind(), 0))) {
            byte[] body = m.encode().array();
            byte[] in = new byte[MrMappingDatagram.ACK_SIZE];
            for (int attempt = 0; attempt < s.attempts() && !waiting.isEmpty(); attempt++) {
                if (attempt > 0) {
                    resent.increment();
                }
                for (InetAddress host : waiting) {
                    socket.send(new DatagramPacket(body, body.length, host, s.port()));
                }
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(s.ackTimeoutMillis());
                while (!waiting.isEmpty()) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        break;
                    }
                    socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
                    DatagramPacket p = new DatagramPacket(in, in.length);
                    try {
                        socket.receive(p);
                    } catch (SocketTimeoutException e) {
                        break;
                    }
                    OptionalInt key = MrMappingDatagram.ackedKey(ByteBuffer.wrap(in, 0, p.getLength()));
                    if (key.isPresent() && key.getAsInt() == m.key() && waiting.remove(p.getAddress())) {
                        acked.add(p.getAddress());
                    }
                }
            }
        } finally {
            announcing.release();
        }
        announced.increment();
        if (!waiting.isEmpty()) {
            unacknowledged.increment();
            refusals.warn("unacked", "freeflow MR mapping of key {} not acknowledged by {} after {} attempt(s):"
                    + " their routers cannot translate WRITE/READ addresses for it",
                    Integer.toUnsignedString(m.key()), names(waiting), s.attempts());
        }
        return new Announcement(List.copyOf(acked), List.copyOf(waiting));
    }

    private void receive() {
        ByteBuffer in = ByteBuffer.allocate(MrMappingDatagram.ACK_SIZE);
        while (server.isOpen()) {
            SocketAddress from;
            in.clear();
            try {
                from = server.receive(in);
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                LOG.warn("freeflow MR mapping: receive failed: {}", e.toString());
                continue;
            }
            in.flip();
            InetSocketAddress sender = (InetSocketAddress) from;
            if (!hosts.contains(sender.getAddress())) {
                unknownSenders.increment();
                refusals.warn("sender:" + sender.getAddress().getHostAddress(), "freeflow MR mapping from {} ignored:"
                        + " not in freeflow.hosts", sender);
                continue;
            }
            MrMappingDatagram m;
            try {
                m = MrMappingDatagram.decode(in);
            } catch (IllegalArgumentException e) {
                malformed.increment();
                refusals.warn("malformed", "freeflow MR mapping from {} ignored: {}", sender, e.getMessage());
                continue;
            }
            table.put(m.key(), new RemoteMrTable.RemoteMr(sender.getAddress(), m.mrPtr(), m.shmPtr()));
            received.increment();
            LOG.debug("freeflow MR mapping from {}: rkey={} mr=0x{} shm=0x{}", sender, Integer.toUnsignedString(m.key()),
                    Long.toHexString(m.mrPtr()), Long.toHexString(m.shmPtr()));
            try {
                server.send(MrMappingDatagram.ack(m.key()), sender);
            } catch (IOException e) {
                LOG.warn("freeflow MR mapping: cannot acknowledge key {} to {}: {}", Integer.toUnsignedString(m.key()),
                        sender, e.toString());
            }
        }
    }

    /** Figures for metrics and {@code /status}. */
    public record Figures(long received, long unknownSenders, long malformed, long announced, long unacknowledged,
                          long resent, long collisions, long ambiguous, int mappings) {
    }

    public Figures figures() {
        return new Figures(received.sum(), unknownSenders.sum(), malformed.sum(), announced.sum(),
                unacknowledged.sum(), resent.sum(), table.collisions.sum(), table.ambiguous.sum(), table.size());
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("closing the mapping socket: {}", e.toString());
        }
        try {
            receiver.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static List<String> names(java.util.Collection<InetAddress> hosts) {
        return hosts.stream().map(InetAddress::getHostAddress).toList();
    }
}
