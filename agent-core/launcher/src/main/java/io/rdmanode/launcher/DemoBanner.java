// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import com.typesafe.config.Config;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code --demo} prints once it is ready: where the status page is, and one line per bundle on how to try
 * it by hand, each built from the demo's resolved configuration (so a line names the socket or executable the
 * agent really serves, and a bundle the configuration leaves out gets no line). Each line also says what the
 * recorded host cannot show: there is no kubelet and no RDMA device the kernel could move.
 */
final class DemoBanner {

    private DemoBanner() {
    }

    static List<String> lines(Config config, String base, Path stateDir) {
        List<String> lines = new ArrayList<>();
        lines.add("rdma-node-agent demo is running. Status: " + base + "/status  Started: " + base
                + "/startedz  (state in " + stateDir + "; Ctrl-C stops it)");
        lines.add("  metrics:        curl -s " + base + "/metrics | grep rdma_agent_infiniband_state_id"
                + "   (the recorded host's counters)");
        if (config.hasPath("kubelet.pluginDir")) {
            lines.add("  device plugins: sockets in " + config.getString("kubelet.pluginDir")
                    + "; they register when a kubelet.sock appears there (no kubelet in the demo, so " + base
                    + "/readyz says not ready, waiting for kubelet; the pools and what each matched are on " + base
                    + "/status)");
        }
        if (config.hasPath("cni.binDir") && config.hasPath("cni.socket")) {
            String rdma = Path.of(config.getString("cni.binDir")).resolve("rdma").toString();
            lines.add("  cni:            echo '{\"cniVersion\":\"1.0.0\",\"name\":\"demo\",\"type\":\"rdma\"}' |"
                    + " CNI_COMMAND=VERSION " + rdma + "   (the runtime's executable, answered by the agent over "
                    + config.getString("cni.socket") + "; an ADD is refused with its reason: a recorded host has no"
                    + " RDMA device to move into a network namespace)");
        }
        if (config.hasPath("freeflow.socketDir")) {
            String name = config.hasPath("freeflow.routerName") ? config.getString("freeflow.routerName") : "ffrouter";
            Path socket = Path.of(config.getString("freeflow.socketDir")).resolve(name);
            // The smallest client: one ALLOC_PD as the genuine Freeflow library sends it (a 12-byte header:
            // client id, function 5, body size 0; a 4-byte answer, the protection domain's handle).
            lines.add("  freeflow:       python3 -c 'import socket,struct;s=socket.socket(socket.AF_UNIX);s.connect(\""
                    + socket + "\");s.sendall(struct.pack(\"<3i\",1,5,0));print(\"ALLOC_PD ->\","
                    + "struct.unpack(\"<i\",s.recv(4))[0])'   (a client's first verbs call on the router socket "
                    + socket + "; Freeflow applications run with FFR_NAME=" + name + " and this directory as their"
                    + " /freeflow; software transport, within this host)");
        }
        return lines;
    }
}
