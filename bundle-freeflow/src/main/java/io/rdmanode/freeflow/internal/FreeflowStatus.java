// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal;

import io.rdmanode.freeflow.internal.rdmacm.CmCounts;
import io.rdmanode.freeflow.internal.router.ControlServer;
import io.rdmanode.freeflow.internal.router.ControlSettings;
import io.rdmanode.freeflow.internal.router.Limits;
import io.rdmanode.freeflow.internal.router.PollerSettings;
import io.rdmanode.freeflow.internal.router.Router;
import io.rdmanode.freeflow.internal.router.TenantFigures;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code freeflow} member of /status: socket, control bounds, limits, poller, rdma_cm, and per tenant its
 * objects, bytes, connections, refusals by cap and rdma_cm figures.
 */
final class FreeflowStatus {
    private FreeflowStatus() {
    }

    static Map<String, Object> of(String socket, String shmDir, Router router, ControlServer server) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("socket", socket);
        m.put("shmDir", shmDir);
        m.put("backend", "software");
        m.put("openConnections", server.openConnections());
        m.put("controlThreads", server.threads());
        ControlSettings cs = server.settings();
        Map<String, Object> control = new LinkedHashMap<>();
        control.put("maxConnections", cs.maxConnections());
        control.put("maxConnectionsPerTenant", cs.maxConnectionsPerTenant());
        control.put("idleTimeoutMillis", cs.idleTimeoutMillis());
        control.put("writeTimeoutMillis", cs.writeTimeoutMillis());
        control.put("idleCuts", server.idleCuts());
        control.put("acceptPauses", server.acceptPauses());
        control.put("bodyBudgetBytes", server.bodyBudget());
        control.put("bodyBytes", server.bodyBytes());
        control.put("bodyBudgetCuts", server.budgetCuts());
        control.put("parkedEvents", server.parkedEvents());
        Map<String, Object> handover = new LinkedHashMap<>();
        handover.put("handedOver", server.handedOver());
        handover.put("linkedToPredecessor", server.linkedToPredecessor());
        handover.put("forwardedToPredecessor", server.forwardedToPredecessor());
        handover.put("takenBackFromSuccessor", server.takenBackFromSuccessor());
        control.put("handover", handover);
        m.put("control", control);
        m.put("reapIntervalMillis", server.reapInterval());
        m.put("shmFiles", router.shmFiles());
        m.put("shmBytes", router.shmBytes());
        Limits l = router.limits();
        Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("maxMrBytes", l.maxMrBytes());
        limits.put("maxMrs", l.maxMrs());
        limits.put("maxQps", l.maxQps());
        limits.put("maxCqs", l.maxCqs());
        limits.put("maxMailboxes", l.maxMailboxes());
        limits.put("maxPds", l.maxPds());
        limits.put("maxChannels", l.maxChannels());
        limits.put("maxShmBytes", l.maxShmBytes());
        m.put("limitsPerTenant", limits);
        m.put("maxCompletionsPerPoll", l.maxCompletionsPerPoll());
        Map<String, Object> poller = new LinkedHashMap<>();
        poller.put("mailboxes", router.poller().mailboxes());
        PollerSettings ps = router.poller().settings();
        poller.put("spins", ps.spins());
        poller.put("spinWaits", ps.spinWaits());
        poller.put("yields", ps.yields());
        poller.put("parkMaxMicros", ps.parkMaxNanos() / 1000);
        poller.put("cpuSeconds", router.poller().cpuSeconds());
        poller.put("scans", router.poller().scans());
        poller.put("parks", router.poller().parks());
        m.put("poller", poller);
        m.put("rdmaCm", rdmaCm(router));
        List<Object> tenants = new ArrayList<>();
        Map<Integer, Integer> connections = server.connectionsByPid();
        for (TenantFigures t : router.tenants()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("pid", t.pid());
            e.put("uid", t.uid());
            e.put("ffrId", t.label());
            e.put("pds", t.pds());
            e.put("cqs", t.cqs());
            e.put("qps", t.qps());
            e.put("srqs", t.srqs());
            e.put("mrs", t.mrs());
            e.put("mrBytes", t.mrBytes());
            e.put("requests", t.requests());
            e.put("errors", t.errors());
            e.put("channels", t.channels());
            e.put("shmBytes", t.shmBytes());
            e.put("connections", connections.getOrDefault(t.pid(), 0));
            Map<String, Object> refused = new LinkedHashMap<>();
            t.refusals().forEach((r, n) -> refused.put(r.label(), n));
            e.put("refusals", refused);
            e.put("cm", Map.of("channels", t.cm().channels(), "ids", t.cm().ids(), "queuedEvents",
                    t.cm().queuedEvents(), "connects", t.cm().connects(), "accepts", t.cm().accepts(),
                    "rejects", t.cm().rejects(), "errors", t.cm().errors()));
            tenants.add(e);
        }
        m.put("tenants", tenants);
        return m;
    }

    private static Map<String, Object> rdmaCm(Router router) {
        CmCounts.Totals c = router.cmTotals();
        Map<String, Object> cm = new LinkedHashMap<>();
        cm.put("served", router.servesRdmaCm());
        cm.put("channels", router.cmChannels());
        cm.put("connects", c.connects());
        cm.put("accepts", c.accepts());
        cm.put("rejects", c.rejects());
        cm.put("requestErrors", c.requestErrors());
        cm.put("errorEvents", c.errorEvents());
        return cm;
    }
}
