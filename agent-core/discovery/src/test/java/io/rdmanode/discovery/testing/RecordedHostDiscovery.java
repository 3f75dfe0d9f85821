// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.testing;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.RdmaCounters;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.internal.sysfs.InfinibandClassReader;
import io.rdmanode.discovery.internal.sysfs.InfinibandCounters;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import io.rdmanode.agent.Ttar;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;

/**
 * Discovery over a recorded host unpacked into a directory, read by the real sysfs backend; shared with other
 * modules' tests through discovery's test-jar (with the recordings {@code cx5-roce-sriov}, {@code cx6-ib},
 * {@code rxe} as class-path resources), so no other module reaches into discovery's internals or sources. The test edits
 * the tree (a port goes down) and calls {@link #rescan()}; listeners hear about real content changes only.
 */
public final class RecordedHostDiscovery implements RdmaDiscovery {

    private final Path dir;
    private final SysfsTopologySource source;
    private volatile NetnsMode mode = NetnsMode.of(NetnsMode.Mode.SHARED);
    private final SnapshotPublisher published;

    private RecordedHostDiscovery(Path dir) {
        this.dir = dir;
        this.source = new SysfsTopologySource(new SysfsRoot(dir.resolve("sys"), dir.resolve("dev")), () -> mode);
        this.published = new SnapshotPublisher(source.scan());
    }

    /** Unpacks recording {@code host} ({@code fixtures/sysfs/<host>.ttar} on the class path) into {@code dir}. */
    public static RecordedHostDiscovery unpack(String host, Path dir) {
        String resource = "/fixtures/sysfs/" + host + ".ttar";
        try (InputStream in = RecordedHostDiscovery.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no recorded host " + resource + " on the class path");
            }
            // The recording may sit in a jar (discovery's test-jar): unpack from a file copy.
            Path copy = Files.createTempFile("recorded-" + host, ".ttar");
            try {
                Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
                Ttar.unpack(copy, dir);
            } finally {
                Files.deleteIfExists(copy);
            }
            return new RecordedHostDiscovery(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path dir() {
        return dir;
    }

    public void netnsMode(NetnsMode.Mode next) {
        mode = NetnsMode.of(next);
    }

    /** Writes {@code ports/<port>/state} of an RDMA device, e.g. {@code 1: DOWN}. */
    public void portState(String device, int port, String state) {
        try {
            Files.writeString(dir.resolve("sys/class/infiniband/" + device + "/ports/" + port + "/state"), state + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public HostSnapshot snapshot() {
        return published.snapshot();
    }

    @Override
    public HostSnapshot rescan() {
        return published.publish(source.scan());
    }

    @Override
    public Optional<RdmaDevice> readDevice(Path sys, String name) {
        return InfinibandClassReader.readIfPresent(new SysfsRoot(sys, dir.resolve("dev")), name);
    }

    @Override
    public RdmaCounters counters() {
        return new InfinibandCounters(dir.resolve("sys"));
    }

    @Override
    public RdmaCounters counters(Path sys) {
        return new InfinibandCounters(sys);
    }

    @Override
    public void addListener(RdmaTopologyListener listener) {
        published.addListener(listener);
    }

    @Override
    public void removeListener(RdmaTopologyListener listener) {
        published.removeListener(listener);
    }

    public int listenerCount() {
        return published.listenerCount();
    }
}
