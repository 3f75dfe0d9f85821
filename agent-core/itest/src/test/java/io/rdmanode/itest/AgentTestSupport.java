// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemPackages;

import io.rdmanode.agent.AgentProperties;
import io.rdmanode.health.StatusSection;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.io.OutputStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.wiring.FrameworkWiring;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.options.UrlProvisionOption;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;

/**
 * Boots a real Felix with the distribution's own {@code bundles/} plus the test-only probe bundle, configured
 * the way the launcher configures it: the config file and state directory as framework properties, SLF4J
 * from the system bundle.
 */
abstract class AgentTestSupport {

    static final Duration APPLY_BOUND = Duration.ofSeconds(1);
    /** Before Pax Exam's provisioned bundles ({@code START_LEVEL_DEFAULT_PROVISION}, 3), after its own (2). */
    private static final int FIRST_START_LEVEL = org.ops4j.pax.exam.Constants.START_LEVEL_DEFAULT_PROVISION - 1;

    Path workDir() {
        return Path.of(System.getProperty("itest.work"), getClass().getSimpleName());
    }

    /**
     * A directory for Unix sockets: short whatever the checkout depth (sun_path holds 107 bytes), stable for
     * one work directory (the Pax Exam driver and container compute it alike) and distinct between checkouts.
     */
    Path socketDir(String name) {
        String key = Integer.toHexString(workDir().toAbsolutePath().toString().hashCode());
        return Path.of("/tmp", "rna-" + key, name);
    }

    Path configFile() {
        return workDir().resolve("agent.conf");
    }

    /** Where {@link #recordedHostDiscovery()} unpacks the demo host. */
    Path recordedHost() {
        return workDir().resolve("host");
    }

    /**
     * Unpacks the recorded demo host (ConnectX-5 RoCE, 2 PFs x 8 VFs) afresh and returns the {@code discovery}
     * section that points the agent at it, with the safety-net rescan off so revisions move only when a test
     * asks.
     */
    String recordedHostDiscovery() {
        RecordedHost.unpack(recordedHost());
        return recordedHostSection();
    }

    /** The {@code discovery} section for the recorded host already unpacked by this test. */
    String recordedHostSection() {
        Path host = recordedHost();
        return """
                discovery {
                  sysfsRoot = "%s/sys"
                  devRoot = "%s/dev"
                  rescanInterval = 0
                }
                """.formatted(host, host);
    }

    Option[] agentOptions(String initialConfig) {
        try {
            Files.createDirectories(workDir().resolve("state"));
            writeConfig(initialConfig);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Option> options = new ArrayList<>();
        for (Path jar : jars(Path.of(System.getProperty("itest.bundles")))) {
            UrlProvisionOption bundle = bundle(jar.toUri().toString());
            if (isFragment(jar)) {
                bundle.start(false);
            } else if (jar.getFileName().toString().equals("rdma-agent-posix.jar")) {
                // Started before the others, as the launcher starts it (BundleDirectory.FIRST): the first bundle
                // to bind libc must find it active (jffi's stub comes from its data area).
                bundle.startLevel(FIRST_START_LEVEL);
            }
            options.add(bundle);
        }
        // What the launcher's class path gives the distribution (system-bundle exports) comes as bundles here.
        options.add(bundle(Path.of(System.getProperty("itest.api")).toUri().toString()));
        options.add(bundle(Path.of(System.getProperty("itest.typesafeConfig")).toUri().toString()));
        options.add(bundle(Path.of(System.getProperty("itest.probe")).toUri().toString()));
        options.add(junitBundles());
        options.add(cleanCaches());
        options.add(frameworkProperty(AgentProperties.CONFIG).value(configFile().toString()));
        options.add(frameworkProperty(AgentProperties.STATE_DIR).value(workDir().resolve("state").toString()));
        // systemPackages, not a framework property: Pax Exam adds its own packages to the same list.
        options.add(systemPackages("org.slf4j;version=2.0.17", "org.slf4j.event;version=2.0.17",
                "org.slf4j.helpers;version=2.0.17", "org.slf4j.spi;version=2.0.17"));
        return options.toArray(Option[]::new);
    }

    /** Saves the way editors do: write a temporary file, then rename it over the watched one. */
    void writeConfig(String hocon) throws IOException {
        Path temp = Files.createTempFile(workDir(), ".agent.conf", ".tmp");
        Files.writeString(temp, hocon);
        Files.move(temp, configFile(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static List<Path> jars(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".jar")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir + " (build the dist module first)", e);
        }
    }

    private static boolean isFragment(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.getManifest().getMainAttributes().getValue("Fragment-Host") != null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static <T> T awaitService(BundleContext context, Class<T> type, Duration timeout) throws InterruptedException {
        ServiceTracker<T, T> tracker = new ServiceTracker<>(context, type, null);
        tracker.open();
        try {
            T service = tracker.waitForService(timeout.toMillis());
            if (service == null) {
                throw new AssertionError("no " + type.getName() + " service within " + timeout);
            }
            return service;
        } finally {
            tracker.close();
        }
    }

    /** Polls until the condition holds; returns how long it took, or fails with the last observed value. */
    static Duration await(String what, Duration timeout, Supplier<Object> observed, Supplier<Boolean> condition)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.get()) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            pollPause();
        }
        throw new AssertionError(what + " not within " + timeout.toMillis() + " ms; last seen: " + observed.get());
    }

    /**
     * Checks that the condition holds now and keeps holding for {@code period}, failing as soon as it does not:
     * for "nothing more happens" (no second registration, no restart) over the time it would take to happen.
     */
    static void holds(String what, Duration period, Supplier<Object> observed, Supplier<Boolean> condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + period.toNanos();
        do {
            if (!condition.get()) {
                throw new AssertionError(what + " stopped holding; seen: " + observed.get());
            }
            pollPause();
        } while (System.nanoTime() < deadline);
    }

    /** The pause between two looks of {@link #await} and {@link #holds}: the only sleep of these tests. */
    private static void pollPause() throws InterruptedException {
        Thread.sleep(10);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> configStatus(BundleContext context) throws Exception {
        for (var ref : context.getServiceReferences(StatusSection.class, null)) {
            StatusSection section = context.getService(ref);
            if (section != null && "config".equals(section.name())) {
                return (Map<String, Object>) section.status();
            }
        }
        throw new AssertionError("no StatusSection named config");
    }

    /** The agent's {@code /metrics} URL, once the HTTP endpoint has published its port. */
    static String metricsUrl(BundleContext context) throws Exception {
        Supplier<ServiceReference<?>[]> published = () -> {
            try {
                return context.getAllServiceReferences(null, "(io.rdmanode.http.port=*)");
            } catch (org.osgi.framework.InvalidSyntaxException e) {
                throw new IllegalStateException(e);
            }
        };
        await("the HTTP endpoint publishes its port", Duration.ofSeconds(10), () -> "no service",
                () -> published.get() != null && published.get().length > 0);
        return "http://127.0.0.1:" + published.get()[0].getProperty("io.rdmanode.http.port") + "/metrics";
    }

    /** The page at {@code url} (200 expected), or "unreachable: ..." while it cannot be fetched. */
    /** The HTTP status of a GET of {@code url}, or -1 when nothing answers within 2 s. */
    static int httpStatus(String url) {
        try {
            java.net.HttpURLConnection c = (java.net.HttpURLConnection) new java.net.URL(url).openConnection();
            c.setConnectTimeout(2000);
            c.setReadTimeout(2000);
            try {
                return c.getResponseCode();
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            return -1;
        }
    }

    static String scrape(String url, String accept) {
        try {
            HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
            if (accept != null) {
                c.setRequestProperty("Accept", accept);
            }
            try (InputStream in = c.getInputStream()) {
                if (c.getResponseCode() != 200) {
                    throw new AssertionError("HTTP " + c.getResponseCode() + " from " + url);
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            return "unreachable: " + e;
        }
    }

    static Bundle installedBundle(BundleContext context, String symbolicName) {
        for (Bundle b : context.getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }

    /** The bundle's own jar from the distribution's bundles/ with one manifest header added. */
    Path rebuiltJar(String name, String build) throws Exception {
        Path original;
        try (var jars = Files.list(Path.of(System.getProperty("itest.bundles")))) {
            original = jars.filter(p -> p.getFileName().toString().contains(name)).findFirst().orElseThrow();
        }
        Path copy = workDir().resolve(name + "-build-" + build + ".jar");
        try (JarInputStream in = new JarInputStream(Files.newInputStream(original))) {
            Manifest manifest = in.getManifest();
            if (manifest == null) {
                throw new AssertionError(original + " has no manifest");
            }
            manifest.getMainAttributes().putValue("X-Build", build);
            try (OutputStream file = Files.newOutputStream(copy);
                 JarOutputStream out = new JarOutputStream(file, manifest)) {
                for (JarEntry entry; (entry = in.getNextJarEntry()) != null; ) {
                    out.putNextEntry(new JarEntry(entry.getName()));
                    in.transferTo(out);
                    out.closeEntry();
                }
            }
        }
        return copy;
    }

    /**
     * Replaces {@code bundle} by the build in {@code jar} the way the launcher does for a jar replaced in
     * {@code bundles/}: stopped (transiently), updated, refreshed once, started, so that its components restart
     * once ({@code update} of a running bundle and then a refresh would restart them twice).
     */
    static void swap(BundleContext context, Bundle bundle, Path jar) throws Exception {
        bundle.stop(Bundle.STOP_TRANSIENT);
        try (InputStream in = Files.newInputStream(jar)) {
            bundle.update(in);
        }
        refresh(context, bundle);
        bundle.start();
    }

    /** Refreshes {@code bundle}'s wiring (after an update) and waits until the framework is done. */
    static void refresh(BundleContext context, Bundle bundle) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        context.getBundle(0).adapt(FrameworkWiring.class).refreshBundles(List.of(bundle), event -> {
            if (event.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                done.countDown();
            }
        });
        if (!done.await(30, TimeUnit.SECONDS)) {
            throw new AssertionError("refresh did not finish within 30 s");
        }
    }
}
