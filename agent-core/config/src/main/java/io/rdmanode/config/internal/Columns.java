// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Adds the column to a {@link Problem}: typesafe-config's origins carry a line only, and an operator (or an editor
 * jumping to {@code file:line:column}) wants the place on it, which matters on a line such as
 * {@code { name = a, rdmaHcaMax = 0, selectors { ... } }}. The column is where the key's last segment is
 * written on the problem's line ({@code rdmaHcaMax =}, {@code socket =} inside {@code cni { ... }}); failing
 * that, where the line's text starts (a syntax error, a value continued from the line above). The files are read
 * once per instance, so use one instance per check or reload: a file edited again since is at worst a column
 * off, never a wrong line.
 */
final class Columns {

    private final Map<String, List<String>> files = new HashMap<>();

    /** The problem as text, with its column when one can be found. */
    String describe(Problem problem) {
        return locate(problem).toString();
    }

    Problem locate(Problem problem) {
        if (problem.line() <= 0 || problem.column() > 0) {
            return problem;
        }
        List<String> lines = files.computeIfAbsent(problem.file(), Columns::read);
        if (problem.line() == lines.size() + 1 && !lines.isEmpty()) {
            return problem.atColumn(1); // the parser's "end of file": the start of the line after the last one
        }
        if (problem.line() > lines.size()) {
            return problem;
        }
        int column = column(lines.get(problem.line() - 1), problem.key());
        return column > 0 ? problem.atColumn(column) : problem;
    }

    static int column(String line, String key) {
        String segment = lastSegment(key);
        if (!segment.isEmpty() && !key.equals(Problem.SYNTAX)) {
            // The segment as a key: not inside a longer name, optionally quoted, followed by = : or {.
            Matcher m = Pattern.compile("(?<![\\w\"-])\"?" + Pattern.quote(segment) + "\"?\\s*[=:{]").matcher(line);
            if (m.find()) {
                return m.start() + 1;
            }
            // Or as an element of a dotted path: deviceplugin.sharde.pools = [].
            m = Pattern.compile("(?<![\\w\"-])" + Pattern.quote(segment) + "(?=\\.)").matcher(line);
            if (m.find()) {
                return m.start() + 1;
            }
        }
        for (int i = 0; i < line.length(); i++) {
            if (!Character.isWhitespace(line.charAt(i))) {
                return i + 1;
            }
        }
        return 1;
    }

    /** {@code deviceplugin.shared.pools[hca_a].rdmaHcaMax} → {@code rdmaHcaMax}; {@code a.pools[2]} → {@code pools}. */
    static String lastSegment(String key) {
        String last = key.substring(key.lastIndexOf('.') + 1);
        int bracket = last.indexOf('[');
        return bracket >= 0 ? last.substring(0, bracket) : last;
    }

    private static List<String> read(String file) {
        try {
            return Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return List.of(); // no column then; the line still says where
        }
    }
}
