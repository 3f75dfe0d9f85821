// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import static org.junit.Assert.assertEquals;

import io.rdmanode.probe.Probe;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * A new build of a bundle replaces the running one the way the launcher does it for a jar replaced in
 * {@code bundles/} (stop, {@code Bundle.update} from the new jar, one refresh, start), while the rest keeps serving:
 * {@code /healthz} answers throughout, and a component of another bundle keeps its configuration untouched.
 * The launcher's directory watch that triggers this is tested in {@code BundleDirectoryTest} and, on the
 * built distribution with a kubelet double counting registrations, in dist's {@code HotSwapIT}. The metrics bundle is swapped: nothing imports from it, so
 * the refresh does not reach this test's own bundle.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HotSwapIT extends AgentTestSupport {

    static final HttpClient HTTP = HttpClient.newHttpClient();

    @Inject
    BundleContext context;

    @Configuration
    public Option[] config() {
        return agentOptions("""
                agent.http.port = 0
                probe.greeting = hello
                """);
    }

    @Test
    public void replacedBundleIsUpdatedWhileTheOthersKeepServing() throws Exception {
        Probe probe = awaitService(context, Probe.class, Duration.ofSeconds(10));
        String base = Files.readString(workDir().resolve("state").resolve("http.url")).trim();
        await("/metrics served", Duration.ofSeconds(10), () -> "no answer", () -> status(base + "/metrics") == 200);
        Bundle metrics = installedBundle(context, "io.rdmanode.metrics");
        Path newBuild = rebuiltJar("metrics", "2");

        AtomicInteger failures = new AtomicInteger();
        AtomicInteger answers = new AtomicInteger();
        AtomicBoolean polling = new AtomicBoolean(true);
        Thread poller = new Thread(() -> {
            while (polling.get()) {
                if (status(base + "/healthz") == 200) {
                    answers.incrementAndGet();
                } else {
                    failures.incrementAndGet();
                }
            }
        }, "hot-swap-healthz-poller");
        poller.start();
        long start = System.nanoTime();
        swap(context, metrics, newBuild);
        await("/metrics served by the new build", Duration.ofSeconds(10), () -> metrics.getHeaders().get("X-Build"),
                () -> "2".equals(metrics.getHeaders().get("X-Build")) && status(base + "/metrics") == 200);
        long swapMs = (System.nanoTime() - start) / 1_000_000;
        polling.set(false);
        poller.join();

        System.out.println("metrics bundle swapped in " + swapMs + " ms; /healthz answered " + answers.get()
                + " times meanwhile, failed " + failures.get());
        assertEquals("failed /healthz answers during the swap", 0, failures.get());
        assertEquals("another bundle's component untouched", 0, probe.modifications());
        assertEquals("hello", probe.config().get("greeting"));
        assertEquals(Bundle.ACTIVE, metrics.getState());
    }

    private static int status(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (java.io.IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
