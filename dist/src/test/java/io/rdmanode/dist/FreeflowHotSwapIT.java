// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new build of the device-plugin layer's bundle copied over its jar in the running demo, which the launcher
 * applies as an update and a package refresh (the refresh restarts the layer's importers, the device-plugin
 * bundles): the Freeflow router, which asks the layer for a device only through the platform API (issue 25), is
 * not among them. Its socket stays the same file, and this process, a tenant holding a PD, keeps it and gets more.
 */
class FreeflowHotSwapIT {


    @TempDir
    Path temp;

    @Test
    void aNewBuildOfTheDevicePluginLayerLeavesTheRouterAndItsTenantsObjects() throws Exception {
        Path home = temp.resolve("rdma-node-agent");
        AgentProcessIT.copyTree(AgentProcessIT.DIST, home);
        try (AgentProcess agent = AgentProcess.start(home, temp.resolve("unused"),
                Map.of("RDMA_AGENT_HTTP_PORT", "0"), "--demo")) {
            AgentProcess.DemoBanner demo = agent.awaitDemoBanner(Duration.ofSeconds(60));
            Path socket = demo.stateDir().resolve("freeflow").resolve("ffrouter");
            Object inode = Files.getAttribute(socket, "unix:ino");
            int pd = GenuineFreeflowCall.allocPd(socket);
            assertThat(pd).isPositive();
            assertThat(tenant(demo.base()).get("pds").getAsInt()).isEqualTo(1);

            Path jar = home.resolve("bundles").resolve("rdma-agent-deviceplugin.jar");
            byte[] build2 = HotSwapIT.rebuilt(jar, "2");
            try (OutputStream out = Files.newOutputStream(jar)) {       // cp writes in place
                out.write(build2);
            }
            Awaitility.await("the layer's bundle updated and refreshed").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> agent.output().contains("updated=[io.rdmanode.deviceplugin/"));
            // The refresh restarted the layer's importers: the shared pools' bundle logged its pools again.
            Awaitility.await("the device-plugin bundles restarted by the refresh").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20)).until(() -> agent.output().lines()
                            .filter(l -> l.contains("device-plugin layer started")).count() == 2);

            assertThat(Files.getAttribute(socket, "unix:ino")).as("the same socket file").isEqualTo(inode);
            assertThat(agent.output().lines().filter(l -> l.contains("freeflow router listening on")).count())
                    .as("the router started once:\n%s", agent.output()).isEqualTo(1);
            assertThat(tenant(demo.base()).get("pds").getAsInt()).as("the tenant keeps its PD").isEqualTo(1);
            assertThat(GenuineFreeflowCall.allocPd(socket)).as("and gets another").isGreaterThan(pd);
            assertThat(tenant(demo.base()).get("pds").getAsInt()).isEqualTo(2);
            assertThat(agent.terminate(Duration.ofSeconds(15))).as("exit code; log:\n%s", agent.output()).isZero();
        }
    }

    /** This process's entry in /status freeflow.tenants (the router identifies a tenant by its peer's pid). */
    private static JsonObject tenant(String base) throws IOException, InterruptedException {
        JsonArray tenants = AgentProcess.json(base + "/status").getAsJsonObject("freeflow").getAsJsonArray("tenants");
        for (var t : tenants) {
            if (t.getAsJsonObject().get("pid").getAsLong() == ProcessHandle.current().pid()) {
                return t.getAsJsonObject();
            }
        }
        throw new AssertionError("no tenant of pid " + ProcessHandle.current().pid() + " in " + tenants);
    }
}
