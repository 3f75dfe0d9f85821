// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmanode.netlink.NetworkNamespaces;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * A request on the CNI socket as the rdma executable frames it (magic, NUL-terminated CNI_* variables, stdin),
 * fed arbitrary bytes, decoded by {@link CniServer#decode} and answered by the real {@link CniHandler} over the
 * fake RDMA kernel. Contract: a malformed frame is refused (the server answers decode error 6); a decoded one
 * gets exit code 0, or exit code 1 with spec error JSON whose code is one the plugin documents and whose message
 * is non-empty; no unchecked exception escapes (the client would report error 11, "agent down"), and the request
 * counters stay bounded whatever CNI_COMMAND says.
 * Corpus: {@code src/test/resources/io/rdmanode/cni/internal/CniRequestFuzzTestInputs/answers/}.
 */
class CniRequestFuzzTest {

    private static final Set<Integer> DOCUMENTED = Set.of(1, 2, 3, 4, 5, 6, 7, 11, 50, 51, 100, 101, 102, 103, 104);
    private static final Set<String> LABELS = Set.of("ADD", "DEL", "CHECK", "STATUS", "GC", "VERSION", "none",
            "other");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final CniStats STATS = new CniStats();
    private static final CniHandler HANDLER = handler();

    @FuzzTest
    void answers(byte[] request) throws IOException {
        Map<String, String> env = new HashMap<>();
        byte[] stdin;
        try {
            stdin = CniServer.decode(request, env);
        } catch (CniError refused) {
            // A value that is not UTF-8: the spec's decode error, naming the variable.
            assertThat(refused.code).isEqualTo(CniError.DECODE);
            assertThat(refused.getMessage()).isNotBlank();
            return;
        }
        if (stdin == null) {
            return;                                        // the server answers code 6 itself
        }
        STATS.requests.clear();
        CniHandler.Response r = HANDLER.handle(env, stdin);

        assertThat(r.exitCode()).isIn(0, 1);
        if (r.exitCode() == 1) {
            JsonNode error = JSON.readTree(r.stdout());
            assertThat(error.path("code").isInt()).as("error JSON %s", r.stdout()).isTrue();
            assertThat(error.path("code").intValue()).isIn(DOCUMENTED);
            assertThat(error.path("msg").asText()).isNotBlank();
            assertThat(error.path("cniVersion").isTextual()).isTrue();
        } else if (!r.stdout().isEmpty()) {
            assertThat(JSON.readTree(r.stdout()).isObject()).as("result %s", r.stdout()).isTrue();
        }
        // The command label is one of the spec's six, "none" or "other": a client must not add metric series.
        assertThat(STATS.requests.keySet()).allSatisfy(k -> assertThat(k.substring(0, k.indexOf('|')))
                .isIn(LABELS));
    }

    private static CniHandler handler() {
        try {
            Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                    : Path.of(System.getProperty("java.io.tmpdir")), "cni-fuzz-");
            dir.toFile().deleteOnExit();
            DeviceResolver host = new DeviceResolver() {
                @Override
                public Optional<List<String>> rdmaDevices(String pciAddress) {
                    return Optional.ofNullable(TestAgent.HOST.get(pciAddress));
                }

                @Override
                public Optional<String> notReady() {
                    return Optional.empty();
                }
            };
            return new CniHandler(new AttachmentStore(dir), new FakeRdmaKernel("mlx5_7", "mlx5_8"), new Namespaces(),
                    host, STATS, Clock.systemUTC());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Namespaces that exist by name only: /var/run/netns/*, no file system, no setns. */
    private static final class Namespaces implements NetworkNamespaces {
        @Override
        public <T> T callIn(Path netns, Callable<T> work) {
            throw new UnsupportedOperationException("the fuzz target enters no namespace");
        }

        @Override
        public <T> T callInWithSysfs(Path netns, Callable<T> work) {
            throw new UnsupportedOperationException("the fuzz target enters no namespace");
        }

        @Override
        public boolean exists(Path netns) {
            return netns.startsWith("/var/run/netns/") && netns.getNameCount() == 4;
        }
    }
}
