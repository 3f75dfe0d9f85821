// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import io.rdmanode.agent.Ttar;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Discovery over a recorded host unpacked into a directory, read by the real sysfs backend. The test edits
 * the tree (a port goes down) and calls {@link #rescan()}; listeners hear about real content changes only.
 */
final class FixtureDiscovery implements RdmaDiscovery {

    private final Path dir;
    private final SysfsTopologySource source;
    private final List<RdmaTopologyListener> listeners = new CopyOnWriteArrayList<>();
    private volatile NetnsMode mode = NetnsMode.of(NetnsMode.Mode.SHARED);
    private volatile HostSnapshot snapshot;

    private FixtureDiscovery(Path dir) {
        this.dir = dir;
        this.source = new SysfsTopologySource(new SysfsRoot(dir.resolve("sys"), dir.resolve("dev")), () -> mode);
        this.snapshot = source.scan().withRevision(1, Instant.now());
    }

    static FixtureDiscovery unpack(String host, Path dir) {
        try {
            Ttar.unpack(Path.of(FixtureDiscovery.class.getResource("/fixtures/sysfs/" + host + ".ttar").toURI()), dir);
            return new FixtureDiscovery(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
    }

    Path dir() {
        return dir;
    }

    void netnsMode(NetnsMode.Mode next) {
        mode = NetnsMode.of(next);
    }

    /** Writes {@code ports/<port>/state} of an RDMA device, e.g. {@code 1: DOWN}. */
    void portState(String device, int port, String state) {
        try {
            Files.writeString(dir.resolve("sys/class/infiniband/" + device + "/ports/" + port + "/state"), state + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public HostSnapshot snapshot() {
        return snapshot;
    }

    @Override
    public synchronized HostSnapshot rescan() {
        HostSnapshot next = source.scan();
        HostSnapshot previous = snapshot;
        if (next.withRevision(0, Instant.EPOCH).equals(previous.withRevision(0, Instant.EPOCH))) {
            return previous;
        }
        snapshot = next.withRevision(previous.revision() + 1, Instant.now());
        TopologyDiff diff = new TopologyDiff(previous.revision(), snapshot.revision(), List.of(), List.of(),
                List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(),
                List.of("test rescan"));
        listeners.forEach(l -> l.topologyChanged(snapshot, diff));
        return snapshot;
    }

    @Override
    public void addListener(RdmaTopologyListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(RdmaTopologyListener listener) {
        listeners.remove(listener);
    }

    int listenerCount() {
        return listeners.size();
    }
}
