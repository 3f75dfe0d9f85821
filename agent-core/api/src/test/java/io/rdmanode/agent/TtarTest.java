// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TtarTest {

    @TempDir
    Path tmp;

    private static Path fixture(String name) throws URISyntaxException {
        return Path.of(TtarTest.class.getResource("/fixtures/" + name).toURI());
    }

    @Test
    void unpacksDirectoriesFilesSymlinksAndDeviceNodes() throws Exception {
        Ttar.unpack(fixture("tiny.ttar"), tmp);

        Path link = tmp.resolve("sys/class/infiniband/mlx5_0");
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readString(link.resolve("fw_ver"))).isEqualTo("16.35.2000\n");
        assertThat(tmp.resolve("dev/infiniband/uverbs0")).isEmptyFile();
    }

    @Test
    void packsWhatItUnpackedBackToTheSameEntries() throws Exception {
        Ttar.unpack(fixture("tiny.ttar"), tmp.resolve("a"));
        StringWriter packed = new StringWriter();
        Ttar.pack(tmp.resolve("a"), packed, List.of("again"));
        Path again = tmp.resolve("again.ttar");
        Files.writeString(again, packed.toString());
        Ttar.unpack(again, tmp.resolve("b"));

        assertThat(Files.readString(tmp.resolve("b/sys/class/infiniband/mlx5_0/fw_ver"))).isEqualTo("16.35.2000\n");
        assertThat(Files.readSymbolicLink(tmp.resolve("b/sys/class/infiniband/mlx5_0")))
                .isEqualTo(Files.readSymbolicLink(tmp.resolve("a/sys/class/infiniband/mlx5_0")));
    }

    @Test
    void refusesAPathOutsideTheDestinationAndNamesTheLine() throws Exception {
        Path dest = tmp.resolve("dest");
        assertThatThrownBy(() -> Ttar.unpack(fixture("escaping.ttar"), dest)).isInstanceOf(IOException.class)
                .hasMessageContaining("escaping.ttar:1").hasMessageContaining("leaves the destination");
        assertThat(tmp.resolve("escape")).doesNotExist();
    }
}
