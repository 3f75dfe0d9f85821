// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;

/**
 * The rule STYLE.md states and issue #9 asks a build check for: no bundle reaches into another bundle's
 * {@code internal} package. Checked on the manifests bnd wrote, so it sees what the framework will wire:
 * <ul>
 * <li>an agent bundle ({@code io.rdmanode.*}) imports no package with an {@code internal} segment that it does
 * not export itself (bnd lists a bundle's own exports among its imports);</li>
 * <li>no bundle at all imports an {@code io.rdmanode} internal package it does not export;</li>
 * <li>no agent bundle exports an internal package (that would let the first two pass by exporting);</li>
 * <li>the same for {@code DynamicImport-Package}, where an agent bundle's wildcard that covers
 * {@code io.rdmanode} internals ({@code *}, {@code io.rdmanode.*}) counts as reaching them (netty-common's
 * {@code *} is its own business).</li>
 * </ul>
 * Third-party bundles sharing their own project's internals (Netty's modules and {@code io.netty.util.internal},
 * Jackson databind) are their project's business and not checked. {@link #ALLOWED} lists the exceptions.
 */
record InternalImports(String bundle, String file, List<String> imports, List<String> exports,
        List<String> dynamicImports) {

    InternalImports(String bundle, String file, List<String> imports, List<String> exports) {
        this(bundle, file, imports, exports, List.of());
    }

    /**
     * lib-grpc wraps grpc-java's jars intact: grpc-netty uses Netty's internal utilities, as every Netty module
     * does, and grpc-core names grpc-binder's internals in an optional import that nothing here provides
     * (grpc-binder is Android's transport). grpc-java's own {@code io.grpc.internal} is lib-grpc's own export.
     */
    static final Map<String, Set<String>> ALLOWED = Map.of("io.rdmanode.lib.grpc",
            Set.of("io.netty.util.internal", "io.netty.util.internal.logging", "io.grpc.binder.internal"));

    static InternalImports read(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            Attributes main = file.getManifest().getMainAttributes();
            String bsn = String.valueOf(main.getValue("Bundle-SymbolicName")).split(";")[0].strip();
            return new InternalImports(bsn, jar.getFileName().toString(), packages(main.getValue("Import-Package")),
                    packages(main.getValue("Export-Package")), packages(main.getValue("DynamicImport-Package")));
        }
    }

    /** What breaks the rule, one line each ("bundle (file): imports p" or "... exports p"); empty if nothing. */
    List<String> violations() {
        List<String> found = new ArrayList<>();
        boolean ours = bundle.startsWith("io.rdmanode.");
        for (String p : imports) {
            if (internal(p) && !exports.contains(p) && !ALLOWED.getOrDefault(bundle, Set.of()).contains(p)
                    && (ours || p.startsWith("io.rdmanode."))) {
                found.add(bundle + " (" + file + "): imports another bundle's internal package " + p);
            }
        }
        for (String p : dynamicImports) {
            boolean wildcard = p.equals("*") || p.endsWith(".*") && "io.rdmanode.".startsWith(p.substring(0, p.length() - 1));
            if (ours && wildcard || internal(p) && (ours || p.startsWith("io.rdmanode."))) {
                found.add(bundle + " (" + file + "): dynamically imports internal packages " + p);
            }
        }
        for (String p : exports) {
            if (ours && internal(p) && p.startsWith("io.rdmanode.")) {
                found.add(bundle + " (" + file + "): exports its internal package " + p);
            }
        }
        return found;
    }

    static boolean internal(String pkg) {
        return List.of(pkg.split("\\.")).contains("internal");
    }

    /** The package names of an OSGi package header: clauses split on commas outside quotes, attributes dropped. */
    static List<String> packages(String header) {
        List<String> names = new ArrayList<>();
        if (header == null || header.isBlank()) {
            return names;
        }
        StringBuilder clause = new StringBuilder();
        boolean quoted = false;
        for (char c : (header + ",").toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            }
            if (c == ',' && !quoted) {
                for (String part : clause.toString().split(";")) {
                    String name = part.strip();
                    if (!name.isEmpty() && !name.contains("=")) {
                        names.add(name); // "p1;p2;version=1" exports two packages
                    }
                }
                clause.setLength(0);
            } else {
                clause.append(c);
            }
        }
        return names;
    }
}
