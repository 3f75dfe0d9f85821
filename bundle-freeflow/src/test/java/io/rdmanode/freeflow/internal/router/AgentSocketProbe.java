// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.testclient.FfClient;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A clean-room client against a running agent's Freeflow socket (args: socket, shm directory, optionally the
 * device's name, e.g. rxe0): QUERY_PORT, one RC QP and one MR, printed as
 * {@code key=value} lines, with the kernel's object counts of the device while they exist. For checking the shipped agent with {@code freeflow.transport = verbs}
 * in the Soft-RoCE VM, where the answers come from the device (real QPN, port state and MTU).
 */
public final class AgentSocketProbe {
    private AgentSocketProbe() {
    }

    public static void main(String[] args) throws Exception {
        FfClient c = new FfClient(Path.of(args[0]), Path.of(args[1]), 3);
        ByteBuffer port = c.call(FfClient.QUERY_PORT, FfClient.buf(1).put(0, (byte) 1), 48);
        System.out.println("agent.port.state=" + port.getInt(0));
        System.out.println("agent.port.active_mtu=" + port.getInt(8));
        int pd = c.allocPd();
        FfClient.Cq cq = c.createCq(16);
        FfClient.Qp qp = c.createQp(pd, cq, cq, 8, 1);
        System.out.println("agent.qpn=" + (qp == null ? "refused" : qp.qpn()));
        FfClient.Mr mr = c.regMr(pd, 4096, 7);
        System.out.println("agent.mr.keys=" + (mr == null ? "refused" : mr.lkey() + "/" + mr.rkey()));
        if (args.length > 2) {              // the kernel's count of the device's objects while they exist
            System.out.println("agent.device.during=" + resources(args[2]));
        }
        System.out.println("agent.done=true");
    }

    /** {@code rdma resource show}'s summary line of a device, e.g. "pd 2 cq 3 qp 2 cm_id 0 mr 1 ctx 1 srq 0". */
    static String resources(String device) throws Exception {
        Process p = new ProcessBuilder("rdma", "resource", "show").redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor();
        return text.lines().filter(l -> l.contains(" " + device + ":")).map(l -> l.substring(l.indexOf(':',
                l.indexOf(device)) + 1).strip()).findFirst().orElse("none");
    }
}
