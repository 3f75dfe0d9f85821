// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.nio.file.Path;
import java.util.AbstractList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * An immutable list of files of one directory, kept as the directory and the files' names, each name one shared
 * String ({@link String#intern}): a port's {@code counters/} and {@code hw_counters/} lists hold the same few
 * dozen names on every port, and as {@link Path}s (each with its bytes, offsets and string) a 1,032-device
 * host's snapshot held 41,000 of them, most of the 10 MB its live heap lost with this list (issue 23). A {@link Path} is made when an element is asked for; it equals the one
 * the list was made from.
 */
final class FileList extends AbstractList<Path> implements RandomAccess {

    private final Path dir;
    private final String[] names;

    private FileList(Path dir, String[] names) {
        this.dir = dir;
        this.names = names;
    }

    /** {@code files} as an immutable list, compact when they share a directory; null elements are refused. */
    static List<Path> of(List<Path> files) {
        if (files instanceof FileList) {
            return files;
        }
        if (files.isEmpty()) {
            return List.of();
        }
        Path dir = Objects.requireNonNull(files.get(0)).getParent();
        String[] names = new String[files.size()];
        for (int i = 0; i < names.length; i++) {
            Path f = Objects.requireNonNull(files.get(i));
            if (dir == null || !dir.equals(f.getParent())) {
                return List.copyOf(files);
            }
            names[i] = f.getFileName().toString().intern();
        }
        return new FileList(dir, names);
    }

    @Override
    public Path get(int index) {
        return dir.resolve(names[index]);
    }

    @Override
    public int size() {
        return names.length;
    }
}
