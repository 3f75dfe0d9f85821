// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What can be told, from the node's files, about whether the container runtime applies CDI devices (issue #8.6:
 * on containerd 1.6 with kubelet 1.26 a CDI pool's pods ran without RDMA devices and nothing said why). A CDI
 * pool needs containerd 1.7 or later with {@code enable_cdi = true} in the CRI plugin section (on by default
 * from containerd 2.0), or CRI-O 1.23 or later (on by default); kubelet passes the devices either through the
 * {@code cdi.k8s.io/} annotation (read by the runtime) or the {@code cdi_devices} field (feature gate
 * {@code DevicePluginCDIDevices}, beta and on from Kubernetes 1.29). The runtime's version is not visible from
 * here, so the check reads its configuration files under {@code root} (the agent sees the node's {@code /etc}
 * only when the DaemonSet mounts it) and says what it found. Every device plugin with CDI pools uses it.
 *
 * @since 1.0
 */
public final class CdiRuntime {

    /** What a CDI pool requires, in words for the log and {@code /status}. */
    public static final String REQUIREMENT = "the container runtime must support CDI: containerd >= 1.7 with"
            + " enable_cdi = true in [plugins.\"io.containerd.grpc.v1.cri\"] (default from containerd 2.0), or"
            + " CRI-O >= 1.23; otherwise pods start without the RDMA devices";

    /** What the node's runtime configuration says about CDI. */
    public enum Verdict { ENABLED, DISABLED, UNKNOWN }

    /**
     * @param verdict what was found
     * @param detail  which file said so, for the log and {@code /status}
     */
    public record Finding(Verdict verdict, String detail) {
        /** The {@code /status} view: requirement, detected verdict, detail. */
        public Map<String, Object> toStatus() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("requirement", REQUIREMENT);
            m.put("detected", verdict.name().toLowerCase(java.util.Locale.ROOT));
            m.put("detail", detail);
            return m;
        }
    }

    private static final Pattern ENABLE_CDI = Pattern.compile("(?m)^\\s*enable_cdi\\s*=\\s*(true|false)");
    private static final Pattern VERSION_3 = Pattern.compile("(?m)^\\s*version\\s*=\\s*3\\b");

    private CdiRuntime() {
    }

    /** @param root the node's root as the agent sees it ({@code /} on a host, a mount in a DaemonSet) */
    public static Finding detect(Path root) {
        Path containerd = root.resolve("etc/containerd/config.toml");
        if (Files.isRegularFile(containerd)) {
            String toml;
            try {
                toml = Files.readString(containerd);
            } catch (IOException e) {
                return new Finding(Verdict.UNKNOWN, "cannot read " + containerd + ": " + e.getMessage());
            }
            var m = ENABLE_CDI.matcher(toml);
            if (m.find()) {
                return m.group(1).equals("true")
                        ? new Finding(Verdict.ENABLED, containerd + " sets enable_cdi = true")
                        : new Finding(Verdict.DISABLED, containerd + " sets enable_cdi = false: CDI pools get no"
                                + " devices");
            }
            if (VERSION_3.matcher(toml).find()) {
                return new Finding(Verdict.ENABLED, containerd + " is a containerd 2.x config (version = 3):"
                        + " CDI on by default");
            }
            return new Finding(Verdict.DISABLED, containerd + " does not set enable_cdi: containerd 1.7 leaves CDI"
                    + " off (containerd 1.6 has none; 2.x turns it on by default)");
        }
        if (Files.isDirectory(root.resolve("etc/crio"))) {
            return new Finding(Verdict.ENABLED, root.resolve("etc/crio") + " exists: CRI-O applies CDI from 1.23");
        }
        return new Finding(Verdict.UNKNOWN, "no containerd or CRI-O configuration under " + root.resolve("etc")
                + " (mount the node's /etc/containerd or /etc/crio read-only to have it checked)");
    }
}
