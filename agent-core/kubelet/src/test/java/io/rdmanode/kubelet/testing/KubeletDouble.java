// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.testing;

import io.rdmanode.kubelet.internal.FakeKubelet;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The kubelet double alone, for tests of a whole agent (the built distribution) that watch what kubelet sees:
 * a real Registration gRPC server on {@code <pluginDir>/kubelet.sock} that counts registrations per resource and
 * opens a ListAndWatch stream to each plugin that registers, in plain types only.
 */
public final class KubeletDouble implements AutoCloseable {

    private final FakeKubelet kubelet;

    private KubeletDouble(Path pluginDir) {
        this.kubelet = new FakeKubelet(pluginDir).start();
    }

    /** Listens on {@code pluginDir/kubelet.sock} (keep the path short: 107 usable bytes). */
    public static KubeletDouble start(Path pluginDir) {
        return new KubeletDouble(pluginDir);
    }

    /** Registrations of {@code resource} so far. */
    public long registrations(String resource) {
        return kubelet.registrations(resource);
    }

    /** Registrations of every resource so far. */
    public int registrations() {
        return kubelet.registrations().size();
    }

    /** Waits until {@code resource} registered {@code count} times; returns the latest one's {@link System#nanoTime()}. */
    public long awaitRegistrations(String resource, long count, Duration timeout) {
        return kubelet.awaitRegistrations(resource, count, timeout).nanos();
    }

    /** The ListAndWatch stream of the plugin registered last for {@code resource}, once its first list came. */
    public Watch watch(String resource, Duration timeout) {
        FakeKubelet.PluginConnection plugin = kubelet.plugin(resource);
        plugin.latest(timeout);
        return () -> plugin.streamEnd() == null;
    }

    @Override
    public void close() {
        kubelet.close();
    }

    /** One ListAndWatch stream, as kubelet holds it. */
    @FunctionalInterface
    public interface Watch {
        /** True while the plugin has neither ended nor failed the stream. */
        boolean open();
    }
}
