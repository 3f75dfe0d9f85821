// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * What a sysfs root is to this process: the running kernel's sysfs (a {@code sysfs} mount, wherever it is
 * mounted: {@code /sys}, or {@code /host/sys} in a DaemonSet) or a recording, and, if it is the kernel's, whether
 * its {@code class/net} is this process's network namespace. Kernel events (uevents, rtnetlink) describe the
 * namespace the agent runs in, so they may drive discovery only when both hold; RDMA netlink and verbs async
 * events describe the running kernel, so they need only the first.
 *
 * <p>A sysfs mount shows the net devices of the namespace of the process that mounted it
 * ({@code fs/sysfs/mount.c} grabs the current net namespace), so comparing {@code class/net} with
 * {@code /proc/self/net/dev} answers the second question without any native call.
 *
 * @param runningKernel the root is a sysfs mount point
 * @param thisNetns its {@code class/net} lists exactly this process's network devices
 * @param description why, for the log and {@code /status}
 */
public record KernelView(boolean runningKernel, boolean thisNetns, String description) {

    private static final Path DEFAULT_SYS = Path.of("/sys");
    private static final int ATTEMPTS = 3;

    /** Kernel events describe this tree. */
    public boolean eventsApply() {
        return runningKernel && thisNetns;
    }

    /** The view of {@code root} from this process, read from {@code /proc/self}. */
    public static KernelView of(SysfsRoot root) {
        return of(root, Path.of("/proc/self/mountinfo"), Path.of("/proc/self/net/dev"));
    }

    static KernelView of(SysfsRoot root, Path mountinfo, Path procNetDev) {
        Path sys = root.sys().toAbsolutePath().normalize();
        if (sys.equals(DEFAULT_SYS)) {
            // Whatever the runtime mounted at /sys is this process's kernel and namespace (a container runtime
            // mounts a fresh sysfs for the container's namespace), as every tool reading /sys assumes.
            return new KernelView(true, true, "/sys");
        }
        Optional<String> fsType;
        try {
            fsType = mountType(Files.readAllLines(mountinfo), sys.toRealPath());
        } catch (IOException e) {
            return new KernelView(false, false, "sysfsRoot " + sys + " unreadable (" + e.getMessage() + ")");
        }
        if (fsType.isEmpty() || !fsType.get().equals("sysfs")) {
            return new KernelView(false, false, "sysfsRoot " + sys + " is not a sysfs mount ("
                    + fsType.map(t -> "a " + t + " mount").orElse("a directory") + "): a recording");
        }
        for (int attempt = 1; ; attempt++) {
            Set<String> tree;
            Set<String> ours;
            try {
                tree = listNames(sys.resolve("class/net"));
                ours = procNetDevNames(Files.readAllLines(procNetDev));
            } catch (IOException e) {
                return new KernelView(true, false, "sysfs at " + sys + ": cannot compare its class/net with "
                        + procNetDev + " (" + e.getMessage() + ")");
            }
            if (tree.equals(ours)) {
                return new KernelView(true, true, "sysfs at " + sys + ", this network namespace");
            }
            if (attempt == ATTEMPTS) {            // a device created between the two reads differs once, not thrice
                return new KernelView(true, false, "sysfs at " + sys + " shows another network namespace ("
                        + tree.size() + " net devices there, " + ours.size() + " here)");
            }
        }
    }

    /**
     * The file system type of the mount whose mount point is exactly {@code path}, the last one if stacked
     * ({@code proc(5)}: mountinfo's fifth field is the mount point, octal-escaped, and the type follows the
     * {@code -} separator).
     */
    static Optional<String> mountType(List<String> mountinfo, Path path) {
        String wanted = path.toString();
        String type = null;
        for (String line : mountinfo) {
            String[] f = line.split(" ");
            int dash = List.of(f).indexOf("-");
            if (f.length < 5 || dash < 0 || dash + 1 >= f.length) {
                continue;
            }
            if (unescape(f[4]).equals(wanted)) {
                type = f[dash + 1];
            }
        }
        return Optional.ofNullable(type);
    }

    private static String unescape(String field) {
        if (field.indexOf('\\') < 0) {
            return field;
        }
        StringBuilder b = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length()) {
                b.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** Interface names in {@code /proc/net/dev}: two header lines, then {@code name: counters...}. */
    static Set<String> procNetDevNames(List<String> lines) {
        Set<String> names = new TreeSet<>();
        for (String line : lines) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.contains("|")) {
                names.add(line.substring(0, colon).trim());
            }
        }
        return names;
    }

    private static Set<String> listNames(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            Set<String> names = new TreeSet<>();
            s.forEach(p -> names.add(p.getFileName().toString()));
            return names;
        }
    }
}
