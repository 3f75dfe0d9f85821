// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.NetworkNamespaces;
import io.rdmanode.netlink.RdmaNetlink;
import io.rdmanode.netlink.RdmaNetnsMode;
import io.rdmanode.agent.LogText;
import io.rdmanode.agent.RefusalLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rdma plugin's logic, one CNI invocation at a time (the server serialises calls; the kernel serialises
 * device moves anyway). Inputs are validated before anything changes; ADD persists its intent, moves the device,
 * then persists the result before answering, so a crash at any step leaves state that DEL, CHECK, GC or
 * {@link #reconcile()} repairs.
 */
final class CniHandler {

    private static final Logger LOG = LoggerFactory.getLogger(CniHandler.class);
    static final List<String> SUPPORTED = List.of("1.0.0", "1.1.0");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> COMMANDS = Set.of("ADD", "DEL", "CHECK", "STATUS", "GC", "VERSION");

    /** Test seam: called between the steps of ADD and DEL; a test throws there to simulate a crash. */
    interface Steps {
        void reached(String step);
    }

    record Response(int exitCode, String stdout) {
    }

    private final AttachmentStore store;
    private final RdmaNetlink rdma;
    private final NetworkNamespaces namespaces;
    private final DeviceResolver devices;
    private final CniStats stats;
    private final Clock clock;
    private volatile Steps steps = s -> { };
    /** Pod uid to the VFs another owner (the DRA driver) prepared for it, for an ADD without a deviceID. */
    private volatile java.util.function.Function<String, List<String>> preparedDevices = uid -> List.of();
    /** One line per command and error code a minute: a runtime retrying a bad ADD in a loop logs once. */
    private final RefusalLog refusals = new RefusalLog(LOG, Duration.ofSeconds(60));

    CniHandler(AttachmentStore store, RdmaNetlink rdma, NetworkNamespaces namespaces, DeviceResolver devices,
               CniStats stats, Clock clock) {
        this.store = store;
        this.rdma = rdma;
        this.namespaces = namespaces;
        this.devices = devices;
        this.stats = stats;
        this.clock = clock;
    }

    void steps(Steps s) {
        this.steps = s;
    }

    void preparedDevices(java.util.function.Function<String, List<String>> byPodUid) {
        this.preparedDevices = byPodUid;
    }

    AttachmentStore store() {
        return store;
    }

    synchronized Response handle(Map<String, String> env, byte[] stdin) {
        long t0 = System.nanoTime();
        String command = env.getOrDefault("CNI_COMMAND", "");
        String version = "1.0.0";
        try {
            if (command.isEmpty()) {
                throw new CniError(CniError.INVALID_ENV, "CNI_COMMAND is not set");
            }
            JsonNode conf = CniInput.parse(stdin);
            version = conf.path("cniVersion").asText("");
            if (version.isEmpty()) {
                throw new CniError(CniError.DECODE, "cniVersion is missing from the network configuration");
            }
            String out = switch (command) {
                case "VERSION" -> versionInfo(version);
                case "ADD" -> add(env, CniInput.requireVersion(conf, version, "1.0.0"), version);
                case "DEL" -> del(env, CniInput.requireVersion(conf, version, "1.0.0"));
                case "CHECK" -> check(env, CniInput.requireVersion(conf, version, "1.0.0"));
                case "STATUS" -> status(CniInput.requireVersion(conf, version, "1.1.0"));
                case "GC" -> gc(CniInput.requireVersion(conf, version, "1.1.0"));
                default -> throw new CniError(CniError.INVALID_ENV, "CNI_COMMAND " + command + " is not one of ADD,"
                        + " DEL, CHECK, STATUS, GC, VERSION");
            };
            stats.request(command, "ok", System.nanoTime() - t0);
            return new Response(0, out);
        } catch (CniError e) {
            stats.request(command, "error", System.nanoTime() - t0);
            refusals.warn("cni-" + (COMMANDS.contains(command) ? command : "other") + "-" + e.code,
                    "CNI {} {}: error {}: {}",
                    LogText.escape(command, 16), LogText.escape(env.getOrDefault("CNI_CONTAINERID", ""), 128), e.code,
                    LogText.escape(e.getMessage(), 1024));
            return new Response(1, error(version, e));
        } catch (InvalidPathException e) {
            // A path from the request this JVM cannot name: its file-name encoding (sun.jnu.encoding, from the
            // locale) is ASCII under LANG=C/POSIX, and the value is not.
            CniError refusal = new CniError(CniError.INVALID_ENV, "'" + e.getInput() + "' cannot be used as a file"
                    + " name by rdma-node-agent: its file-name encoding is " + System.getProperty("sun.jnu.encoding")
                    + " (from its locale) and the value is not; run the agent with a UTF-8 locale (LANG=C.UTF-8)");
            stats.request(command, "error", System.nanoTime() - t0);
            refusals.warn("cni-path-encoding", "CNI {} {}: error {}: {}", LogText.escape(command, 16),
                    LogText.escape(env.getOrDefault("CNI_CONTAINERID", ""), 128), refusal.code,
                    LogText.escape(refusal.getMessage(), 1024));
            return new Response(1, error(version, refusal));
        }
    }

    private static String versionInfo(String version) {
        ObjectNode o = JSON.createObjectNode().put("cniVersion", version);
        SUPPORTED.forEach(o.putArray("supportedVersions")::add);
        return o.toString();
    }

    // ---- ADD ----

    /**
     * The VF of an ADD: the {@code deviceID} Multus passes (a device-plugin VF), else, for a pod whose VFs the DRA
     * driver prepared (no device plugin, so no deviceID), the first of them by {@code K8S_POD_UID} that no other
     * attachment holds: one network attachment per prepared VF, in the order the claims were prepared.
     */
    private String deviceId(JsonNode conf, Map<String, String> args, String key) throws CniError {
        if (CniInput.hasDeviceId(conf)) {
            return CniInput.deviceId(conf);
        }
        String pod = args.getOrDefault("K8S_POD_UID", "");
        List<String> prepared = pod.isEmpty() ? List.of() : preparedDevices.apply(pod);
        if (prepared.isEmpty()) {
            return CniInput.deviceId(conf);                   // says what is missing
        }
        java.util.Set<String> attached = new java.util.HashSet<>();
        for (Attachment a : store.all()) {
            if (!a.key().equals(key)) {
                attached.add(a.pciAddress());
            }
        }
        for (String p : prepared) {
            if (!attached.contains(p)) {
                LOG.info("CNI ADD {}: no deviceID; VF {} prepared for pod uid {} (DRA)", key, p, LogText.escape(pod));
                return CniInput.validPci(p);
            }
        }
        throw new CniError(CniError.DEVICE_BUSY, "no deviceID, and every VF prepared for pod uid " + pod + " " + prepared
                + " is attached already (one network attachment per prepared VF)");
    }

    private String add(Map<String, String> env, JsonNode conf, String version) throws CniError {
        String network = CniInput.networkName(conf);
        String containerId = CniInput.containerId(env);
        String ifname = CniInput.ifname(env);
        requireShortKey(Attachment.key(network, containerId, ifname));
        String netns = CniInput.required(env, "CNI_NETNS");
        Map<String, String> args = CniInput.cniArgs(env.getOrDefault("CNI_ARGS", ""));
        String pci = deviceId(conf, args, Attachment.key(network, containerId, ifname));
        requireNetns(netns);
        String device = rdmaDevice(pci);
        requireExclusive();
        String key = Attachment.key(network, containerId, ifname);
        Optional<Attachment> existing = store.read(key);
        if (existing.isPresent() && existing.get().phase() == Attachment.Phase.ADDED) {
            throw new CniError(CniError.INVALID_CONFIG, "attachment " + key + " already exists (ADD twice without"
                    + " DEL)");
        }
        if (existing.isPresent()) {
            // An ADD that crashed after its intent: undo whatever it did before starting again.
            release(existing.get(), existing.get().netns());
        }
        forgetTombstone(key); // left by a DEL of an earlier attachment with this key; it is not about this one
        for (Attachment other : store.all()) {
            if (other.rdmaDevice().equals(device) && !other.key().equals(key)) {
                throw new CniError(CniError.DEVICE_BUSY, "RDMA device " + device + " (" + pci + ") is already in pod "
                        + other.podNamespace() + "/" + other.podName() + " (container " + other.containerId() + ")");
            }
        }
        Attachment a = new Attachment(network, containerId, ifname, netns, args.getOrDefault("K8S_POD_NAMESPACE", ""),
                args.getOrDefault("K8S_POD_NAME", ""), pci, device, Attachment.Phase.ADDING, clock.instant());
        persist(a, false);
        steps.reached("add:intent-persisted");
        try {
            rdma.moveToNetns(device, Path.of(netns));
        } catch (NetlinkException e) {
            forget(key);
            throw new CniError(CniError.MOVE_FAILED, "failed to move RDMA device " + device + " (" + pci
                    + ") into " + netns + ": " + e.getMessage() + moveHint(device, e.errno()),
                    NetlinkException.errnoName(e.errno()));
        }
        steps.reached("add:moved");
        persist(a.with(Attachment.Phase.ADDED), true);
        steps.reached("add:committed");
        LOG.info("CNI ADD {}: {} ({}) moved into {} for pod {}/{}", key, device, pci, LogText.escape(netns),
                LogText.escape(a.podNamespace()), LogText.escape(a.podName()));
        JsonNode prev = conf.get("prevResult");
        ObjectNode result = prev != null && prev.isObject() ? ((ObjectNode) prev).deepCopy() : JSON.createObjectNode();
        result.put("cniVersion", version);
        return result.toString();
    }

    private static void requireShortKey(String key) throws CniError {
        if (Attachment.tooLong(key)) {
            throw new CniError(CniError.INVALID_ENV, "the network name, CNI_CONTAINERID and CNI_IFNAME together are "
                    + key.getBytes(StandardCharsets.UTF_8).length + " bytes; at most " + Attachment.MAX_KEY_BYTES
                    + " (they name the plugin's state files)");
        }
    }

    /**
     * CNI_NETNS names a container's network namespace that can be entered now; the error says which way it does
     * not. Not the agent's own (the host's, under hostNetwork): a VF moved there is no pod's, and DEL would move
     * it out of the host namespace it is in. Not a {@code /proc/self} path either: it names the namespace of
     * whichever process reads it, the runtime's where the plugin ran, the agent's here.
     */
    private void requireNetns(String netns) throws CniError {
        Path path = Path.of(netns);
        String normal = path.normalize().toString();
        if (normal.startsWith("/proc/self/") || normal.startsWith("/proc/thread-self/")) {
            throw new CniError(CniError.INVALID_ENV, "CNI_NETNS " + netns + " names the namespace of whichever"
                    + " process reads it, not a container's: give /proc/<pid>/ns/net of the container's process or"
                    + " its bind mount (/var/run/netns/<name>)");
        }
        if (!namespaces.exists(path)) {
            boolean there = java.nio.file.Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS);
            throw new CniError(CniError.UNKNOWN_CONTAINER, "the container's network namespace " + netns
                    + (there ? " is not a network namespace (an nsfs bind mount, or /proc/<pid>/ns/net)"
                            : " does not exist"));
        }
        if (OWN_NETNS.isPresent() && OWN_NETNS.equals(NamespaceId.of(path))) {
            throw new CniError(CniError.INVALID_ENV, "CNI_NETNS " + netns + " is the agent's own network namespace"
                    + " (the host's), not a container's: an RDMA device moved there would belong to no pod");
        }
    }

    /** The network namespace this agent runs in, read once: threads that enter others do so for a moment only. */
    private static final java.util.Optional<NamespaceId> OWN_NETNS = NamespaceId.of(Path.of("/proc/self/ns/net"));

    /** A namespace's identity: the device and inode of its nsfs file, whichever path (or bind mount) reaches it. */
    private record NamespaceId(Object dev, Object ino) {

        static java.util.Optional<NamespaceId> of(Path path) {
            try {
                return java.util.Optional.of(new NamespaceId(java.nio.file.Files.getAttribute(path, "unix:dev"),
                        java.nio.file.Files.getAttribute(path, "unix:ino")));
            } catch (java.io.IOException | UnsupportedOperationException e) {
                return java.util.Optional.empty();
            }
        }
    }

    private void requireExclusive() throws CniError {
        RdmaNetnsMode mode;
        try {
            mode = rdma.netnsMode();
        } catch (NetlinkException e) {
            throw new CniError(CniError.NOT_EXCLUSIVE, "cannot read the RDMA subsystem's netns mode: "
                    + e.getMessage() + " (is ib_core loaded?)");
        }
        if (mode != RdmaNetnsMode.EXCLUSIVE) {
            throw new CniError(CniError.NOT_EXCLUSIVE, "the RDMA subsystem's netns mode is " + mode.name()
                    .toLowerCase() + "; the rdma plugin needs exclusive: set 'options ib_core netns_mode=0' in"
                    + " /etc/modprobe.d/ib_core.conf and reboot, or run 'rdma system set netns exclusive' while no"
                    + " other network namespace exists");
        }
    }

    /** What a move errno means for the operator; EOPNOTSUPP is a driver limitation, not a transient failure. */
    private String moveHint(String device, int errno) {
        if (errno != NetlinkException.EOPNOTSUPP) {
            return "";
        }
        try {
            if (rdma.netnsMode() != RdmaNetnsMode.EXCLUSIVE) {
                return "; the RDMA netns mode changed to " + rdma.netnsMode().name().toLowerCase() + " while ADD ran";
            }
        } catch (NetlinkException e) {
            // the mode was exclusive a moment ago: the driver is the likelier cause
        }
        String driver = devices.driver(device).map(d -> "its driver " + d).orElse("its driver");
        return "; " + driver + " cannot move RDMA devices between network namespaces (it lacks"
                + " disassociate_ucontext, like every Soft-RoCE rxe and Soft-iWARP siw device): give pods VFs of a"
                + " NIC whose driver can, such as mlx5_core";
    }

    private String rdmaDevice(String pci) throws CniError {
        Optional<List<String>> names = devices.rdmaDevices(pci);
        if (names.isEmpty()) {
            throw new CniError(CniError.NO_RDMA_DEVICE, "PCI function " + pci + " (deviceID) is not on this host");
        }
        if (names.get().size() != 1) {
            throw new CniError(CniError.NO_RDMA_DEVICE, "PCI function " + pci + " has " + names.get().size()
                    + " RDMA devices " + names.get() + "; exactly one is needed (is the VF bound to its RDMA driver?)");
        }
        return names.get().get(0);
    }

    // ---- DEL ----

    private String del(Map<String, String> env, JsonNode conf) throws CniError {
        String key = Attachment.key(CniInput.networkName(conf), CniInput.containerId(env), CniInput.ifname(env));
        if (Attachment.tooLong(key)) {
            // ADD refuses such a key, so nothing can be recorded under it: DEL succeeds, as it must (it failed with
            // error 5, "File name too long", and a runtime retries a failing DEL for ever).
            return "";
        }
        Optional<Attachment> a;
        try {
            a = store.read(key);
        } catch (InvalidPathException e) {
            // This agent cannot name such a record (its locale's file-name encoding), so it cannot have written
            // one: nothing to release. DEL must not fail forever, or the runtime's cleanup of the chain stops here.
            refusals.warn("cni-del-path-encoding", "CNI DEL {}: no record can exist for it under this agent's"
                    + " file-name encoding {}; nothing to release", LogText.escape(key),
                    System.getProperty("sun.jnu.encoding"));
            return "";
        }
        if (a.isPresent()) {
            String netns = env.getOrDefault("CNI_NETNS", "");
            release(a.get(), netns.isEmpty() ? a.get().netns() : netns);
        }
        forgetTombstone(key); // a DEL the executable recorded while the agent was down: this one finishes it
        return "";
    }

    /** Returns the device from the pod (if it is still there) and drops the state; DEL, GC and reconcile. */
    private void release(Attachment a, String netns) throws CniError {
        if (namespaces.exists(Path.of(netns))) {
            try {
                rdma.returnFromNetns(a.rdmaDevice(), Path.of(netns));
                LOG.info("CNI {}: {} returned from {}", a.key(), a.rdmaDevice(), LogText.escape(netns));
            } catch (NetlinkException e) {
                if (e.errno() != NetlinkException.ENODEV && e.errno() != NetlinkException.ENOENT) {
                    throw new CniError(CniError.MOVE_FAILED, "failed to return RDMA device " + a.rdmaDevice()
                            + " from " + netns + ": " + e.getMessage(), NetlinkException.errnoName(e.errno()));
                }
                LOG.info("CNI {}: {} is no longer in {} ({}); nothing to return", a.key(), a.rdmaDevice(),
                        LogText.escape(netns),
                        NetlinkException.errnoName(e.errno()));
            }
        } else {
            // The kernel returns a namespace's RDMA devices to init_net when the namespace is destroyed.
            LOG.info("CNI {}: {} is gone, the kernel has returned {}", a.key(), LogText.escape(netns), a.rdmaDevice());
        }
        steps.reached("del:returned");
        forget(a.key());
    }

    // ---- CHECK, STATUS, GC ----

    private String check(Map<String, String> env, JsonNode conf) throws CniError {
        String key = Attachment.key(CniInput.networkName(conf), CniInput.containerId(env), CniInput.ifname(env));
        requireShortKey(key);
        String netns = CniInput.required(env, "CNI_NETNS");
        if (!conf.has("prevResult")) {
            throw new CniError(CniError.INVALID_CONFIG, "CHECK needs prevResult");
        }
        Attachment a = store.read(key).filter(x -> x.phase() == Attachment.Phase.ADDED).orElseThrow(
                () -> new CniError(CniError.CHECK_FAILED, "no RDMA device is attached for " + key));
        requireNetns(netns);
        boolean inside;
        try {
            inside = rdma.linksIn(Path.of(netns)).stream().anyMatch(l -> l.name().equals(a.rdmaDevice()));
        } catch (NetlinkException e) {
            throw new CniError(CniError.CHECK_FAILED, "cannot list RDMA devices in " + netns + ": " + e.getMessage());
        }
        if (!inside) {
            throw new CniError(CniError.CHECK_FAILED, "RDMA device " + a.rdmaDevice() + " (" + a.pciAddress()
                    + ") is not in " + netns);
        }
        return "";
    }

    private String status(JsonNode conf) throws CniError {
        Optional<String> why = devices.notReady();
        if (why.isPresent()) {
            throw new CniError(CniError.NOT_AVAILABLE, "the rdma plugin is not ready: " + why.get());
        }
        // CNI 1.1: STATUS fails while ADD cannot succeed; a kernel in shared netns mode refuses every move, and
        // STATUS said ready while each ADD then failed (101).
        try {
            requireExclusive();
        } catch (CniError e) {
            throw new CniError(CniError.NOT_AVAILABLE, "the rdma plugin is not ready: " + e.getMessage());
        }
        return "";
    }

    private String gc(JsonNode conf) throws CniError {
        String network = CniInput.networkName(conf);
        Set<String> valid = new HashSet<>();
        JsonNode list = conf.path("cni.dev/valid-attachments");
        if (!list.isMissingNode() && !list.isArray()) {
            throw new CniError(CniError.INVALID_CONFIG, "cni.dev/valid-attachments must be a list");
        }
        list.forEach(v -> valid.add(Attachment.key(network, v.path("containerID").asText(), v.path("ifname").asText())));
        List<String> failures = new ArrayList<>();
        for (Attachment a : store.all()) {
            if (a.network().equals(network) && !valid.contains(a.key())) {
                try {
                    release(a, a.netns());
                    stats.reconciled("gc");
                } catch (CniError e) {
                    failures.add(e.getMessage());
                }
            }
        }
        if (!failures.isEmpty()) {
            throw new CniError(CniError.MOVE_FAILED, "GC could not release " + failures.size() + " attachment(s)",
                    String.join("; ", failures));
        }
        return "";
    }

    /**
     * Start-up repair. First the DELs requested while the agent was down ({@link #finishDeletesRequestedWhileDown}).
     * ADDING: the ADD never answered, so the runtime treats it as failed; return the device if it did move, and
     * drop the state. ADDED with its namespace gone: the kernel already returned the device.
     */
    synchronized int reconcile() {
        int repaired = finishDeletesRequestedWhileDown();
        for (Attachment a : store.all()) {
            try {
                if (a.phase() == Attachment.Phase.ADDING) {
                    release(a, a.netns());
                    stats.reconciled("unfinished_add");
                    repaired++;
                } else if (!namespaces.exists(Path.of(a.netns()))) {
                    forget(a.key());
                    stats.reconciled("netns_gone");
                    repaired++;
                }
            } catch (CniError e) {
                LOG.warn("CNI reconcile {}: {}", a.key(), LogText.escape(e.getMessage(), 1024));
            }
        }
        return repaired;
    }

    /**
     * DELs the rdma executable answered with error 11 while the agent was unreachable, because their attachment
     * was recorded: it left a tombstone. The runtime may retry the DEL or may not (it gave up, or the pod's
     * namespace is long gone), so the agent finishes each one here: the device goes back to the host (the
     * kernel did it already if the namespace is gone) and the record goes. Runs at start, before the socket
     * opens, and once more after (a tombstone written by a DEL that raced the socket's opening).
     */
    synchronized int finishDeletesRequestedWhileDown() {
        int finished = 0;
        for (AttachmentStore.Tombstone t : store.tombstones()) {
            try {
                Optional<Attachment> a = store.read(t.key());
                if (a.isPresent()) {
                    release(a.get(), a.get().netns());
                    stats.reconciled("del_while_down");
                    finished++;
                    LOG.info("CNI {}: DEL requested at {} while the agent was down (netns {}) finished: {} released,"
                            + " record removed", LogText.escape(t.key()), t.requestedAt(),
                            LogText.escape(t.netns().isEmpty() ? a.get().netns() : t.netns()), a.get().rdmaDevice());
                }
                forgetTombstone(t.key());
            } catch (CniError e) {
                LOG.warn("CNI {}: cannot finish the DEL requested while the agent was down: {}",
                        LogText.escape(t.key()), LogText.escape(e.getMessage(), 1024));
            }
        }
        return finished;
    }

    private void forgetTombstone(String key) throws CniError {
        try {
            store.deleteTombstone(key);
        } catch (IOException e) {
            throw new CniError(CniError.IO_FAILURE, "cannot delete CNI tombstone " + key + ".del: " + e);
        }
    }

    private void persist(Attachment a, boolean durable) throws CniError {
        try {
            store.write(a, durable);
        } catch (IOException e) {
            throw new CniError(CniError.IO_FAILURE, "cannot persist CNI state in " + store.dir() + ": " + e);
        }
    }

    private void forget(String key) throws CniError {
        try {
            store.delete(key);
        } catch (IOException e) {
            throw new CniError(CniError.IO_FAILURE, "cannot delete CNI state " + key + ": " + e);
        }
    }

    static String error(String version, CniError e) {
        ObjectNode o = JSON.createObjectNode().put("cniVersion", version).put("code", e.code).put("msg",
                e.getMessage());
        if (!e.details.isEmpty()) {
            o.put("details", e.details);
        }
        return o.toPrettyString() + "\n";
    }
}
