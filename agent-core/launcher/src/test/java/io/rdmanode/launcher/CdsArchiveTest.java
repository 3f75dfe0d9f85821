// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether the training's steps are tied to the agent (only through a setpriv that has {@code --pdeathsig}), and
 * whether this JVM mapped an archive.
 */
class CdsArchiveTest {

    @TempDir
    Path tmp;

    @Test
    void aSetprivWithoutThePdeathsigOptionLeavesTheStepsUntiedInsteadOfFailingThem() throws Exception {
        // util-linux before 2.33 (RHEL 8): "setpriv: unrecognized option '--pdeathsig'", exit 1.
        Path old = script("old-setpriv", "echo \"setpriv: unrecognized option '$1'\" >&2; exit 1");
        assertThat(CdsArchive.tiedBy(old)).isEmpty();
        assertThat(CdsArchive.tiedBy(tmp.resolve("absent"))).isEmpty();
    }

    @Test
    void theNodesSetprivTiesTheSteps() {
        Path setpriv = Path.of("/usr/bin/setpriv");
        assumeTrue(Files.isExecutable(setpriv), "util-linux's setpriv");
        assertThat(CdsArchive.tiedBy(setpriv)).containsExactly(setpriv.toString(), "--pdeathsig", "KILL");
        assertThat(CdsArchive.commands(tmp, tmp.resolve("agent-17.jsa.partial-1")))
                .allSatisfy(step -> assertThat(step.subList(0, 3))
                        .isEqualTo(List.of(setpriv.toString(), "--pdeathsig", "KILL")));
    }

    @Test
    void anArchiveCountsAsMappedOnlyWhenThisJvmsMemoryMapNamesItsFile() throws Exception {
        // This JVM's own base archive (the JDK's default CDS), found in the real /proc/self/maps.
        Path base = Path.of(System.getProperty("java.home"), "lib", "server", "classes.jsa");
        assumeTrue(Files.isRegularFile(base) && System.getProperty("java.vm.info", "").contains("sharing"),
                "a JDK running with its default CDS archive");
        Path link = Files.createSymbolicLink(tmp.resolve("through-a-link.jsa"), base);
        Path other = Files.writeString(tmp.resolve("agent-17.0.0.jsa"), "not an archive");

        assertThat(CdsArchive.mapped(base, Files.lines(Path.of("/proc/self/maps")))).isTrue();
        assertThat(CdsArchive.mapped(link, Files.lines(Path.of("/proc/self/maps")))).as("by its real path").isTrue();
        assertThat(CdsArchive.mapped(other, Files.lines(Path.of("/proc/self/maps")))).isFalse();
        assertThat(CdsArchive.mapped(tmp.resolve("gone.jsa"), Files.lines(Path.of("/proc/self/maps")))).isFalse();
    }

    private Path script(String name, String body) throws Exception {
        Path file = tmp.resolve(name);
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }
}
