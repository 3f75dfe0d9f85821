// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import static io.rdmanode.cni.internal.Netns.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmanode.netlink.Netlink;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The agent dies between two steps of ADD or DEL (the handler is abandoned mid-call, as a killed process
 * would be), a new agent starts over the same state directory and reconciles, and the runtime's follow-up
 * (DEL after a failed ADD, DEL again after a failed DEL) finishes the job: nothing leaks, nothing moves twice.
 * Real network namespaces; the fake RDMA kernel keeps the devices' whereabouts across the "restart".
 */
class CniCrashIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final String ns = Netns.unique("rdt-crash-");
    private TestAgent agent;

    static final class Killed extends Error {
        private static final long serialVersionUID = 1L;

        Killed(String step) {
            super("killed at " + step);
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        Assumptions.assumeTrue(ip("netns", "add", ns) == 0, "needs root and iproute2");
        agent = new TestAgent();
    }

    @AfterEach
    void tearDown() throws Exception {
        agent.close();
        ip("netns", "del", ns);
    }

    private CniHandler handler() throws Exception {
        return new CniHandler(new AttachmentStore(agent.stateDir()), agent.kernel, Netlink.namespaces(),
                agent.resolver(), new CniStats(), Clock.systemUTC());
    }

    private Map<String, String> env(String command) {
        Map<String, String> e = new HashMap<>();
        e.put("CNI_COMMAND", command);
        e.put("CNI_CONTAINERID", "c1");
        e.put("CNI_IFNAME", "net1");
        e.put("CNI_NETNS", Netns.path(ns).toString());
        e.put("CNI_ARGS", "K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=p1");
        return e;
    }

    private static byte[] conf() {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"type\":\"rdma\",\"deviceID\":\"0000:3b:02.1\",\"prevResult\":{}}"
                .getBytes(StandardCharsets.UTF_8);
    }

    private static void killAt(CniHandler h, String step) {
        h.steps(s -> {
            if (s.equals(step)) {
                throw new Killed(s);
            }
        });
    }

    private long stateFiles() throws Exception {
        try (var f = Files.list(agent.stateDir())) {
            return f.filter(p -> p.toString().endsWith(".json")).count();
        }
    }

    @ParameterizedTest(name = "killed at {0}")
    @ValueSource(strings = {"add:intent-persisted", "add:moved", "add:committed"})
    void addKilledThenRestartThenDel(String step) throws Exception {
        CniHandler first = handler();
        killAt(first, step);
        assertThatThrownBy(() -> first.handle(env("ADD"), conf())).isInstanceOf(Killed.class);

        CniHandler restarted = handler();
        restarted.reconcile();
        if (step.equals("add:committed")) {
            // The state was committed: the attachment stands, and CHECK says so.
            assertThat(agent.kernel.inHost("mlx5_7")).isFalse();
            assertThat(restarted.handle(env("CHECK"), conf()).exitCode()).isZero();
        } else {
            // The ADD never answered, so the runtime counts it failed: reconciliation undid it.
            assertThat(agent.kernel.inHost("mlx5_7")).isTrue();
            assertThat(stateFiles()).isZero();
        }
        assertThat(restarted.handle(env("DEL"), conf()).exitCode()).isZero();

        assertThat(agent.kernel.inHost("mlx5_7")).isTrue();
        assertThat(stateFiles()).isZero();
        assertThat(agent.kernel.moves).as("moved into the pod at most once").isLessThanOrEqualTo(1);
        assertThat(agent.kernel.returns).isEqualTo(agent.kernel.moves);
    }

    @Test
    void delKilledAfterTheReturnIsFinishedByTheNextDel() throws Exception {
        CniHandler first = handler();
        assertThat(first.handle(env("ADD"), conf()).exitCode()).isZero();
        killAt(first, "del:returned");
        assertThatThrownBy(() -> first.handle(env("DEL"), conf())).isInstanceOf(Killed.class);
        assertThat(stateFiles()).isOne();

        CniHandler restarted = handler();
        restarted.reconcile();
        CniHandler.Response del = restarted.handle(env("DEL"), conf());

        assertThat(del.exitCode()).as(del.stdout()).isZero();
        assertThat(stateFiles()).isZero();
        assertThat(agent.kernel.inHost("mlx5_7")).isTrue();
        assertThat(agent.kernel.returns).isOne();
    }

    @Test
    void addRetriedAfterACrashDoesNotMoveTwice() throws Exception {
        CniHandler first = handler();
        killAt(first, "add:moved");
        assertThatThrownBy(() -> first.handle(env("ADD"), conf())).isInstanceOf(Killed.class);

        // No reconciliation in between: the retried ADD itself repairs the half-done one first.
        CniHandler.Response again = handler().handle(env("ADD"), conf());

        assertThat(again.exitCode()).as(again.stdout()).isZero();
        assertThat(agent.kernel.linksIn(Netns.path(ns))).extracting(l -> l.name()).containsExactly("mlx5_7");
        assertThat(agent.kernel.returns).isOne();
    }

    @Test
    void aKilledHandlerIsReportedByTheExecutableAsTryAgain() throws Exception {
        agent.start();
        killAt(agent.component.handler(), "add:moved");
        Netns.Exec e = Netns.exec(agent.client(), env("ADD"), new String(conf(), StandardCharsets.UTF_8));

        assertThat(e.exit()).isEqualTo(1);
        assertThat(JSON.readTree(e.stdout()).path("code").asInt()).as(e.stdout()).isEqualTo(11);

        agent.stop();
        agent.start(); // start-up reconciliation
        assertThat(agent.kernel.inHost("mlx5_7")).isTrue();
        assertThat(stateFiles()).isZero();
    }

    /** Many ADD/DEL pairs with a kill at a random step: every device ends in the host, no state is left. */
    @Test
    void randomKillsNeverLeakOrLoseState() throws Exception {
        String[] steps = {"none", "add:intent-persisted", "add:moved", "add:committed", "del:returned"};
        int kills = 0;
        for (int i = 0; i < 200; i++) {
            String step = steps[ThreadLocalRandom.current().nextInt(steps.length)];
            CniHandler h = handler();
            killAt(h, step);
            try {
                h.handle(env("ADD"), conf());
                h.handle(env("DEL"), conf());
            } catch (Killed k) {
                kills++;
                CniHandler restarted = handler();
                restarted.reconcile();
                assertThat(restarted.handle(env("DEL"), conf()).exitCode()).isZero();
            }
            assertThat(agent.kernel.inHost("mlx5_7")).as("iteration %d, %s", i, step).isTrue();
            assertThat(stateFiles()).as("iteration %d, %s", i, step).isZero();
        }
        assertThat(agent.kernel.returns).isEqualTo(agent.kernel.moves);
        System.out.printf("200 ADD/DEL pairs, %d killed mid-way: 0 leaked, 0 lost; moves=%d returns=%d%n", kills,
                agent.kernel.moves, agent.kernel.returns);
    }
}
