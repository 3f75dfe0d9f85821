// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.kubelet.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Figures for issue 8 items 3 and 4, run by {@code scripts/bench-kubelet-host} (not a test): the real host
 * against the kubelet double over Unix sockets, in one JVM.
 * <ul>
 *   <li>kubelet restarts in kubelet 1.26's order (the old kubelet dies leaving its kubelet.sock, the new one
 *   deletes the plugin sockets, then replaces kubelet.sock a few ms later): registrations per restart (1 is right; more is the extra re-registration of item 3) and the time
 *   from the new kubelet.sock until every resource is registered again;</li>
 *   <li>a kubelet restart while kubelet is slow to answer one resource's Register (1 s): time until the
 *   other resources are registered again (item 4: one registrar thread made them wait);</li>
 *   <li>a save of tuning keys: how long resources are not registered, when it rebuilds the host (what the
 *   component did) and when it retunes in place.</li>
 * </ul>
 */
public final class HostRegistrationBenchmark {

    private static final String[] RESOURCES = {"rdma/hca_a", "rdma/hca_b", "rdma/hca_c", "rdma/hca_d",
        "rdma/hca_e", "rdma/hca_f", "rdma/hca_g", "rdma/hca_h"};

    public static void main(String[] args) throws Exception {
        int restarts = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "kbench");
        System.out.printf("java %s, %d CPUs, load average %s%n", System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).trim());
        try (FakeKubelet kubelet = new FakeKubelet(dir).start()) {
            HostSettings settings = new HostSettings(dir, kubelet.socket(), 5000, 2000, 60_000, 2);
            KubeletDevicePluginHost host = new KubeletDevicePluginHost(settings);
            serveAll(host, kubelet);
            restartsInKubeletOrder(kubelet, restarts);
            slowRegister(kubelet);
            host = tuningSave(host, kubelet, settings);
            host.close();
        }
    }

    private static void serveAll(KubeletDevicePluginHost host, FakeKubelet kubelet) {
        long before = kubelet.registrations().size();
        for (String r : RESOURCES) {
            host.serve(new TestPlugin(r, List.of(new Device("d-0", true, List.of()))));
        }
        for (String r : RESOURCES) {
            kubelet.awaitRegistrations(r, countBefore(kubelet, r, before) + 1, Duration.ofSeconds(10));
        }
    }

    private static void restartsInKubeletOrder(FakeKubelet kubelet, int restarts) throws Exception {
        Random random = new Random(42);
        long extra = 0;
        int restartsWithExtra = 0;
        double[] allBack = new double[restarts];
        for (int i = 0; i < restarts; i++) {
            long before = kubelet.registrations().size();
            kubelet.kill();
            Thread.sleep(random.nextInt(10));                 // systemd starts the new kubelet
            kubelet.deletePluginFiles();
            Thread.sleep(random.nextInt(30));                 // kubelet: device manager start, then kubelet.sock
            kubelet.replaceSocket();
            long replaced = kubelet.startedNanos();
            long last = 0;
            for (String r : RESOURCES) {
                last = Math.max(last, kubelet.awaitRegistrations(r, countBefore(kubelet, r, before) + 1,
                        Duration.ofSeconds(10)).nanos());
            }
            quietFor(kubelet, Duration.ofMillis(500));        // let any extra registration arrive
            long registrations = kubelet.registrations().size() - before;
            extra += registrations - RESOURCES.length;
            restartsWithExtra += registrations > RESOURCES.length ? 1 : 0;
            allBack[i] = Math.max(0, (last - replaced) / 1e6);
        }
        Arrays.sort(allBack);
        System.out.printf("kubelet restarts (1.26 order, %d resources): %d restarts, %d with extra registrations,"
                        + " %d extra registrations; new kubelet.sock to all registered: median %.1f ms, max %.1f ms%n",
                RESOURCES.length, restarts, restartsWithExtra, extra, allBack[restarts / 2], allBack[restarts - 1]);
    }

    /** Waits until no registration has arrived for {@code quiet}. */
    private static void quietFor(FakeKubelet kubelet, Duration quiet) {
        long[] seen = {kubelet.registrations().size()};
        org.awaitility.Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10))
                .during(quiet).atMost(quiet.multipliedBy(10)).until(() -> {
                    long now = kubelet.registrations().size();
                    boolean same = now == seen[0];
                    seen[0] = now;
                    return same;
                });
    }

    private static long countBefore(FakeKubelet kubelet, String resource, long firstN) {
        return kubelet.registrations().stream().limit(firstN).filter(r -> r.resource().equals(resource)).count();
    }

    private static void slowRegister(FakeKubelet kubelet) throws Exception {
        long before = kubelet.registrations().size();
        kubelet.hold(RESOURCES[0]);
        kubelet.restart();
        long restarted = kubelet.startedNanos();
        // Pacing, not waiting: kubelet holds the Register call 1 s.
        var releaser = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        releaser.schedule(() -> kubelet.release(RESOURCES[0]), 1, java.util.concurrent.TimeUnit.SECONDS);
        double others = 0;
        for (String r : Arrays.copyOfRange(RESOURCES, 1, RESOURCES.length)) {
            long at = kubelet.awaitRegistrations(r, countBefore(kubelet, r, before) + 1, Duration.ofSeconds(10)).nanos();
            others = Math.max(others, (at - restarted) / 1e6);
        }
        releaser.shutdown();
        releaser.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
        kubelet.awaitRegistrations(RESOURCES[0], countBefore(kubelet, RESOURCES[0], before) + 1, Duration.ofSeconds(10));
        System.out.printf("kubelet restart, Register of one resource held 1 s by kubelet: the other %d registered"
                + " %.1f ms after the new kubelet.sock%n", RESOURCES.length - 1, others);
    }

    /** Not-registered window of every resource during a save that changes only tuning keys. */
    private static KubeletDevicePluginHost tuningSave(KubeletDevicePluginHost host, FakeKubelet kubelet,
                                                      HostSettings settings) throws Exception {
        HostSettings tuned = new HostSettings(settings.pluginDir(), settings.kubeletSocket(), 7000, 3000, 30_000,
                settings.ioThreads());
        // What the component did on any change: close the host (every server) and build it again.
        long start = System.nanoTime();
        host.close();
        KubeletDevicePluginHost rebuilt = new KubeletDevicePluginHost(tuned);
        serveAll(rebuilt, kubelet);
        double rebuild = (System.nanoTime() - start) / 1e6;
        List<String> notRegistered = new ArrayList<>();
        double retune;
        try {
            var method = KubeletDevicePluginHost.class.getMethod("retune", HostSettings.class);
            long before = kubelet.registrations().size();
            start = System.nanoTime();
            method.invoke(rebuilt, settings);
            retune = (System.nanoTime() - start) / 1e6;
            quietFor(kubelet, Duration.ofMillis(500));
            rebuilt.unregistered().keySet().forEach(notRegistered::add);
            System.out.printf("tuning save: host rebuilt (before): %.1f ms until all %d registered again;"
                            + " retuned in place (after): %.2f ms, %d registrations, %d resources not registered%n",
                    rebuild, RESOURCES.length, retune, kubelet.registrations().size() - before, notRegistered.size());
        } catch (NoSuchMethodException e) {
            System.out.printf("tuning save: host rebuilt: %.1f ms until all %d registered again; no retune here%n",
                    rebuild, RESOURCES.length);
        }
        return rebuilt;
    }
}
