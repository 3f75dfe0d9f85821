// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ColumnsTest {

    @TempDir
    Path dir;

    @Test
    void theColumnIsWhereTheKeyIsWrittenOnItsLine() {
        assertThat(Columns.column("  { name = hca_a, rdmaHcaMax = 0, selectors {} }",
                "deviceplugin.shared.pools[hca_a].rdmaHcaMax")).isEqualTo(19);
        assertThat(Columns.column("cni { socket = \"x\" }", "cni.socket")).isEqualTo(7);
        assertThat(Columns.column("\"port\": 1", "agent.http.port")).isEqualTo(1);
        assertThat(Columns.column("deviceplugin.sharde.pools = []", "deviceplugin.sharde")).isEqualTo(14);
        // Not inside a longer name: maxQps is not found in maxQpsPerTenant.
        assertThat(Columns.column("freeflow { maxQpsPerTenant = 1, maxQps = 2 }", "freeflow.maxQps")).isEqualTo(33);
    }

    @Test
    void withoutTheKeyOnTheLineItIsWhereTheTextStarts() {
        assertThat(Columns.column("    ]", "deviceplugin.shared.pools")).isEqualTo(5);
        assertThat(Columns.column("  discovery { backend = ", Problem.SYNTAX)).isEqualTo(3);
        assertThat(Columns.column("", "a.b")).isEqualTo(1);
    }

    @Test
    void aProblemIsDescribedAsFileLineColumnKeyMessage() throws Exception {
        Path file = Files.writeString(dir.resolve("agent.conf"), "agent.http {\n  port = 99999\n}\n");
        Columns columns = new Columns();

        assertThat(columns.describe(new Problem(file.toString(), 2, "agent.http.port", "too big")))
                .isEqualTo(file + ":2:3: agent.http.port: too big");
        assertThat(columns.describe(new Problem(file.toString(), -1, "agent.http.port", "missing")))
                .isEqualTo(file + ": agent.http.port: missing");
        assertThat(columns.describe(new Problem(file.toString(), 4, Problem.SYNTAX, "end of file")))
                .isEqualTo(file + ":4:1: syntax: end of file");
        assertThat(columns.describe(new Problem(dir.resolve("gone.conf").toString(), 2, "a", "m")))
                .isEqualTo(dir.resolve("gone.conf") + ":2: a: m");
    }
}
