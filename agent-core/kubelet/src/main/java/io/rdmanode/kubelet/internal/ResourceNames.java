// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.kubelet.ExtendedResourceNames;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;

/** Extended resource names (kubelet {@code deviceplugin/v1beta1}, protocol-facts §1.1) and socket file names. */
public final class ResourceNames {

    private ResourceNames() {
    }

    /** As {@link ExtendedResourceNames#problem}. */
    public static Optional<String> problem(String resourceName) {
        return ExtendedResourceNames.problem(resourceName);
    }

    /** Every socket file of ours starts with this; the start-up clean-up touches nothing else. */
    public static final String SOCKET_PREFIX = "rdma-node-agent.";
    public static final String SOCKET_SUFFIX = ".sock";
    /**
     * Longest socket file name, in bytes. A resource name may have 317 characters but {@code sun_path} holds 107
     * bytes for the whole path, so names are bounded: kubelet's {@code /var/lib/kubelet/device-plugins/} (32)
     * plus 48 leaves room, and the agent's own view of the directory may be 58 bytes long.
     */
    public static final int MAX_SOCKET_NAME = 48;
    /** {@code sun_path} is 108 bytes on Linux, one of them the terminating NUL. */
    public static final int SUN_PATH_MAX = 107;
    /** Longest socket directory, in bytes: a directory, '/', a name of {@link #MAX_SOCKET_NAME}. */
    public static final int MAX_SOCKET_DIR = SUN_PATH_MAX - 1 - MAX_SOCKET_NAME;
    private static final int HASH_CHARS = 8;

    /** Longest instance tag, in bytes: milliseconds in base 36 have 8 digits until the year 2059. */
    public static final int MAX_INSTANCE_TAG = 8;

    /**
     * The plugin's socket file name for one agent instance, e.g. {@code rdma-node-agent.rdma_hca_a.m3x7k2ab.sock}:
     * the resource name with '/' as '_' (a domain holds no '_', so distinct names stay distinct) while that fits
     * {@link #MAX_SOCKET_NAME}, otherwise its head and a hash of the whole name, so that it is still readable;
     * then the instance tag. Two instances (a surge upgrade, a successor taking over) never share a socket, so
     * the one that stops removes only its own; kubelet serves a resource from its newest registration.
     *
     * @param instance an {@link InstanceTags} tag: at most {@link #MAX_INSTANCE_TAG} characters of [0-9a-z]
     */
    public static String socketFileName(String resourceName, String instance) {
        if (instance.isEmpty() || instance.length() > MAX_INSTANCE_TAG || !instance.matches("[0-9a-z]+")) {
            throw new IllegalArgumentException("instance tag '" + instance + "' is not 1 to " + MAX_INSTANCE_TAG
                    + " characters of [0-9a-z]");
        }
        String tail = "." + instance + SOCKET_SUFFIX;
        int room = MAX_SOCKET_NAME - SOCKET_PREFIX.length() - (1 + MAX_INSTANCE_TAG + SOCKET_SUFFIX.length());
        String plain = resourceName.replace('/', '_');
        if (plain.getBytes(StandardCharsets.UTF_8).length <= room) {
            return SOCKET_PREFIX + plain + tail;
        }
        String hash = "-" + sha256Hex(resourceName).substring(0, HASH_CHARS);
        String head = plain.substring(0, room - hash.length());        // names are ASCII: chars are bytes
        return SOCKET_PREFIX + head + hash + tail;
    }

    /**
     * The instance tag in a socket file name of ours ({@code prefix base.tag.sock}); empty for a name without one
     * (an agent before instance tags) or not ours.
     */
    public static Optional<String> instanceOf(String fileName) {
        return split(fileName).map(parts -> parts[1]);
    }

    /** The part of a socket file name of ours that names the resource: equal for every instance of one resource. */
    public static Optional<String> resourcePartOf(String fileName) {
        return split(fileName).map(parts -> parts[0]);
    }

    private static Optional<String[]> split(String fileName) {
        if (!fileName.startsWith(SOCKET_PREFIX) || !fileName.endsWith(SOCKET_SUFFIX)) {
            return Optional.empty();
        }
        String middle = fileName.substring(SOCKET_PREFIX.length(), fileName.length() - SOCKET_SUFFIX.length());
        int dot = middle.lastIndexOf('.');
        if (dot <= 0 || !middle.substring(dot + 1).matches("[0-9a-z]{1," + MAX_INSTANCE_TAG + "}")) {
            return Optional.empty();
        }
        return Optional.of(new String[] {middle.substring(0, dot), middle.substring(dot + 1)});
    }

    /**
     * Why no plugin socket can be created in {@code dir}: the longest socket name would not fit {@code sun_path}
     * (bind fails with ENAMETOOLONG). Empty when every socket fits.
     */
    public static Optional<String> socketDirProblem(Path dir) {
        int bytes = dir.toString().getBytes(StandardCharsets.UTF_8).length;
        int max = MAX_SOCKET_DIR;
        if (bytes <= max) {
            return Optional.empty();
        }
        return Optional.of("directory '" + dir + "' is " + bytes + " bytes long; plugin socket paths must fit"
                + " sun_path (" + SUN_PATH_MAX + " bytes) with names of up to " + MAX_SOCKET_NAME
                + " bytes, so the directory may have at most " + max + " bytes");
    }

    private static String sha256Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder();
            for (byte b : digest) {
                hex.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
