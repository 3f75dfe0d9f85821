// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher.status;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A plain-text table with left-aligned columns two spaces apart, as {@code kubectl get} prints them. */
final class TextTable {

    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    TextTable(String... header) {
        this.columns = header.length;
        rows.add(header);
    }

    TextTable row(Object... cells) {
        if (cells.length != columns) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, table " + columns + " columns");
        }
        rows.add(Arrays.stream(cells).map(c -> c == null ? "-" : c.toString()).toArray(String[]::new));
        return this;
    }

    boolean isEmpty() {
        return rows.size() == 1;
    }

    String render() {
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(row[i]);
                if (i < columns - 1) {
                    line.append(" ".repeat(widths[i] - row[i].length() + 2));
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }
}
