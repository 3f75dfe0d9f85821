// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaCounters;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.testing.SysfsTree;
import io.rdmanode.agent.Ttar;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;

/**
 * A recorded host ({@code fixtures/sysfs/<host>.ttar}) unpacked into a directory and scanned by discovery's
 * real sysfs backend, as the agent would see it with {@code sysfsRoot} pointing there.
 */
public record RecordedHost(String name, Path dir, SysfsTree source) {

    public static final java.util.List<String> ALL = java.util.List.of("cx5-roce-sriov", "cx6-ib", "rxe");

    public static RecordedHost unpack(String host, Path dir) {
        URL url = RecordedHost.class.getResource("/fixtures/sysfs/" + host + ".ttar");
        if (url == null) {
            throw new IllegalArgumentException("no fixture fixtures/sysfs/" + host + ".ttar");
        }
        try {
            Ttar.unpack(Path.of(url.toURI()), dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
        return of(host, dir);
    }

    /** A tree already in place under {@code dir/sys} and {@code dir/dev}. */
    public static RecordedHost of(String host, Path dir) {
        return new RecordedHost(host, dir, SysfsTree.of(dir, () -> NetnsMode.unknown("recorded host")));
    }

    public Path sys() {
        return dir.resolve("sys");
    }

    /** Discovery's reader of this tree's counters ({@code RdmaDiscovery.counters()}). */
    public RdmaCounters counters() {
        return source.counters();
    }

    public HostSnapshot scan() {
        return source.scan();
    }
}
