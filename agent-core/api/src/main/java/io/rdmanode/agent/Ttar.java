// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A reviewable text archive of a sysfs + /dev tree that keeps symlinks (after procfs's {@code ttar}). Entries
 * are separated by {@value #SEPARATOR} lines; lines starting with {@code #} before the first entry are a
 * comment. Entry kinds:
 * <pre>
 * Directory: sys/bus/pci/devices        Path: sys/class/net/ens1f0      Path: sys/.../fw_ver
 *                                       SymlinkTo: ../../devices/...    Lines: 1
 * Path: dev/infiniband/uverbs0                                          16.35.2000
 * CharDevice: 231:192
 * </pre>
 * A {@code CharDevice} is unpacked as an empty regular file (creating device nodes needs privileges and buys
 * nothing: discovery only checks that the node exists; major:minor comes from sysfs {@code dev}). File modes are
 * not kept: sysfs modes carry no information discovery uses.
 *
 * <p>The demo's recorded host ({@code config/demo-host/*.ttar}) is unpacked with it by the launcher
 * ({@code --demo}); tests unpack their recorded hosts with it. After unpacking to {@code D}, discovery reads
 * {@code sysfsRoot = D/sys} and {@code devRoot = D/dev}.
 *
 * @since 1.0
 */
public final class Ttar {

    public static final String SEPARATOR = "# ttar - - -";

    private Ttar() {
    }

    /**
     * Unpacks {@code archive} below {@code dest}; paths must stay inside {@code dest}.
     *
     * @throws IOException naming the archive and line of a malformed entry, or an I/O failure
     */
    public static void unpack(Path archive, Path dest) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(archive, StandardCharsets.UTF_8)) {
            String line;
            int lineNo = 0;
            Path current = null;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.startsWith("Directory: ")) {
                    Files.createDirectories(inside(dest, line.substring(11), archive, lineNo));
                } else if (line.startsWith("Path: ")) {
                    current = inside(dest, line.substring(6), archive, lineNo);
                    Files.createDirectories(current.getParent());
                } else if (line.startsWith("SymlinkTo: ")) {
                    Files.createSymbolicLink(need(current, archive, lineNo), Path.of(line.substring(11)));
                } else if (line.startsWith("CharDevice: ")) {
                    Files.write(need(current, archive, lineNo), new byte[0]);
                } else if (line.startsWith("Lines: ")) {
                    int n = Integer.parseInt(line.substring(7).strip());
                    StringBuilder content = new StringBuilder();
                    for (int i = 0; i < n; i++) {
                        String l = in.readLine();
                        if (l == null) {
                            throw new IOException(archive + ":" + lineNo + ": archive ends inside a file");
                        }
                        content.append(l).append('\n');
                    }
                    lineNo += n;
                    Files.writeString(need(current, archive, lineNo), content);
                } else if (!line.startsWith("#") && !line.startsWith("Mode: ") && !line.isBlank()) {
                    throw new IOException(archive + ":" + lineNo + ": unexpected line '" + line + "'");
                }
            }
        }
    }

    /** Writes every entry below {@code src} (relative paths), sorted, so that archives diff well. */
    public static void pack(Path src, Writer out, List<String> comment) throws IOException {
        for (String c : comment) {
            out.write("# " + c + "\n");
        }
        List<Path> all;
        try (Stream<Path> walk = Files.walk(src)) {
            all = new ArrayList<>(walk.filter(p -> !p.equals(src)).sorted().toList());
        }
        for (Path p : all) {
            String rel = src.relativize(p).toString();
            if (Files.isSymbolicLink(p)) {
                out.write("Path: " + rel + "\nSymlinkTo: " + Files.readSymbolicLink(p) + "\n");
            } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                out.write("Directory: " + rel + "\n");
            } else if (rel.startsWith("dev/")) {
                out.write("Path: " + rel + "\nCharDevice: " + Files.readString(p).strip() + "\n");
            } else {
                List<String> lines = Files.readAllLines(p, StandardCharsets.UTF_8);
                out.write("Path: " + rel + "\nLines: " + lines.size() + "\n");
                for (String l : lines) {
                    out.write(l + "\n");
                }
            }
            out.write(SEPARATOR + "\n");
        }
    }

    private static Path need(Path current, Path archive, int lineNo) throws IOException {
        if (current == null) {
            throw new IOException(archive + ":" + lineNo + ": content before any 'Path:' line");
        }
        return current;
    }

    private static Path inside(Path dest, String rel, Path archive, int lineNo) throws IOException {
        Path p = dest.resolve(rel).normalize();
        if (!p.startsWith(dest.normalize())) {
            throw new IOException(archive + ":" + lineNo + ": path '" + rel + "' leaves the destination");
        }
        return p;
    }
}
