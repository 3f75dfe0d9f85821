// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.discovery.DiscoveryException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reading sysfs attributes. A missing optional attribute is {@code Optional.empty()}; a missing or unreadable
 * required one is a {@link DiscoveryException} naming the path and the reason. Values are trimmed: sysfs
 * attributes end with a newline.
 */
public final class SysfsFiles {

    private SysfsFiles() {
    }

    public static String required(Path file) {
        try {
            return read(file);
        } catch (IOException e) {
            throw new DiscoveryException("cannot read", file, reason(e), e);
        }
    }

    /** Empty when the file does not exist; other failures (EACCES, EIO) still name the file. */
    public static Optional<String> optional(Path file) {
        try {
            return Optional.of(read(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new DiscoveryException("cannot read", file, reason(e), e);
        }
    }

    /** Like {@link #optional} but an empty value counts as absent (rxe's blank {@code fw_ver}). */
    public static Optional<String> optionalNonBlank(Path file) {
        return optional(file).filter(s -> !s.isEmpty());
    }

    /** Parses a required decimal integer. */
    public static int requiredInt(Path file) {
        return parseInt(file, required(file));
    }

    public static Optional<Integer> optionalInt(Path file) {
        return optional(file).map(v -> parseInt(file, v));
    }

    static int parseInt(Path file, String value) {
        try {
            return value.startsWith("0x") ? Integer.parseInt(value.substring(2), 16) : Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new DiscoveryException("cannot parse", file, "expected an integer, got '" + value + "'", e);
        }
    }

    /**
     * Where a symlink points, as a usable path whose last element is the target's name (sysfs links end in
     * the object's name: a BDF, a driver, an IOMMU group); empty when the link itself is missing, an error
     * naming the target when it dangles. Cheaper than toRealPath(), which stats every path component: on a
     * host with a thousand VFs that difference is most of a scan.
     */
    public static Optional<Path> optionalLink(Path link) {
        Path target;
        try {
            target = Files.readSymbolicLink(link);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (java.nio.file.NotLinkException e) {
            return Optional.of(requireExists(link));
        } catch (IOException e) {
            throw new DiscoveryException("cannot read link", link, reason(e), e);
        }
        requireExists(link);
        String last = target.getFileName() == null ? "" : target.getFileName().toString();
        if (last.equals("..") || last.equals(".") || last.isEmpty()) {
            return Optional.of(resolve(link));              // e.g. infiniband/<dev>/device -> ../..
        }
        return Optional.of(link.resolveSibling(target));
    }

    /** Checks that a path (maybe a link) leads somewhere; a dangling link names its target. */
    public static Path requireExists(Path path) {
        if (!Files.exists(path)) {
            throw new DiscoveryException("cannot resolve", path, danglingReason(path));
        }
        return path;
    }

    /** Resolves a path that must exist to its real path; a dangling link names its target. */
    public static Path resolve(Path path) {
        try {
            return path.toRealPath();
        } catch (NoSuchFileException e) {
            throw new DiscoveryException("cannot resolve", path, danglingReason(path), e);
        } catch (IOException e) {
            throw new DiscoveryException("cannot resolve", path, reason(e), e);
        }
    }

    /** Entry names of a directory, sorted; empty when the directory is missing. */
    public static List<String> list(Path dir) {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                names.add(p.getFileName().toString());
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        } catch (IOException e) {
            throw new DiscoveryException("cannot list", dir, reason(e), e);
        }
        names.sort(null);
        return names;
    }

    /** Files of a counters directory, sorted, as paths; empty when the directory is missing. */
    public static List<Path> listFiles(Path dir) {
        List<Path> files = new ArrayList<>();
        for (String name : list(dir)) {
            files.add(dir.resolve(name));
        }
        return files;
    }

    public static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static String danglingReason(Path path) {
        try {
            if (Files.isSymbolicLink(path)) {
                return "dangling link to " + Files.readSymbolicLink(path);
            }
        } catch (IOException ignored) {
            // fall through to the plain reason
        }
        return "No such file or directory";
    }

    private static String read(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.UTF_8).strip();
    }
}
