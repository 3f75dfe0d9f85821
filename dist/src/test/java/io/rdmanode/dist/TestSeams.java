// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The source-level twin of {@link InternalImports}: finds test files that import another module's
 * {@code io.rdmanode.<x>.internal} package. Modules share test code through public {@code testing} packages in
 * their test-jars ({@code KubeletTestbed}, {@code RecordedHostDiscovery}, ...), which keep the internals free to
 * change; an import of another module's internals would tie its tests to them again (issue #9, item 8).
 *
 * <p>Imports are read where Java puts them, at the start of a line (an indented {@code import} is text in a
 * string). A module is a directory with a {@code pom.xml} and a {@code src/test/java}. An import is its own when the
 * imported package's internal root (the name up to its first {@code internal} segment) is, or contains, a
 * package of the module's {@code src/main/java} or {@code src/test/java}: generated packages under an own
 * internal root (gRPC stubs) count as own.
 */
final class TestSeams {

    private static final Pattern IMPORT = Pattern.compile(
            "^import\\s+(?:static\\s+)?(io\\.rdmanode\\.[\\w.]*?\\binternal\\b[\\w.*]*)\\s*;");
    private static final Pattern INTERNAL_ROOT = Pattern.compile("^(io\\.rdmanode\\.(?:\\w+\\.)*?internal)(?:\\.|$)");
    private static final Set<String> SKIPPED = Set.of(".git", "target", "node_modules", ".mvn");

    private TestSeams() {
    }

    /** Every offending import under {@code root}, as {@code file:line imports name (...)}, sorted. */
    static List<String> violations(Path root) {
        List<String> found = new ArrayList<>();
        for (Path module : modules(root)) {
            Set<String> own = new TreeSet<>();
            own.addAll(packages(module.resolve("src/main/java")));
            own.addAll(packages(module.resolve("src/test/java")));
            for (Path file : javaFiles(module.resolve("src/test/java"))) {
                List<String> lines = read(file);
                for (int i = 0; i < lines.size(); i++) {
                    Matcher m = IMPORT.matcher(lines.get(i));
                    if (!m.find()) {
                        continue;
                    }
                    Matcher r = INTERNAL_ROOT.matcher(m.group(1));
                    if (!r.find()) {
                        continue;          // e.g. io.rdmanode.x.internalize: not an internal package
                    }
                    String internalRoot = r.group(1);
                    if (own.stream().noneMatch(p -> p.equals(internalRoot) || p.startsWith(internalRoot + "."))) {
                        found.add(root.relativize(file) + ":" + (i + 1) + " imports " + m.group(1)
                                + " (another module's internal package; use that module's testing package)");
                    }
                }
            }
        }
        found.sort(null);
        return found;
    }

    /** The repository root: {@code repo.root} as the build passes it, else the nearest parent with mvnw. */
    static Path repositoryRoot() {
        String given = System.getProperty("repo.root");
        if (given != null && !given.isBlank()) {
            return Path.of(given).toAbsolutePath().normalize();
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("mvnw")) && Files.isRegularFile(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException("no repository root (mvnw beside pom.xml) above " + Path.of("").toAbsolutePath());
    }

    static List<Path> modules(Path root) {
        List<Path> modules = new ArrayList<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    if (!dir.equals(root) && SKIPPED.contains(dir.getFileName().toString())) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve("src/test/java"))) {
                        modules.add(dir);
                    }
                    // Sources hold no modules: do not walk them.
                    return dir.getFileName() != null && dir.getFileName().toString().equals("src")
                            ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        modules.sort(null);
        return modules;
    }

    private static Set<String> packages(Path sources) {
        Set<String> packages = new TreeSet<>();
        for (Path file : javaFiles(sources)) {
            Path dir = sources.relativize(file).getParent();
            if (dir != null) {
                packages.add(dir.toString().replace(dir.getFileSystem().getSeparator(), "."));
            }
        }
        return packages;
    }

    private static List<Path> javaFiles(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(file.toString(), e);
        }
    }
}
