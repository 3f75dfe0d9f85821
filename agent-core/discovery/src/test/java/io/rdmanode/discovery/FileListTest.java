// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The compact counter-file lists of a snapshot are the lists they were made from. */
class FileListTest {

    @Test
    void filesOfOneDirectoryAreKeptAsNamesAndEqualTheOriginal() {
        List<Path> files = List.of(Path.of("/sys/class/infiniband/mlx5_0/ports/1/counters/link_downed"),
                Path.of("/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data"));
        List<Path> compact = FileList.of(files);
        assertThat(compact).isInstanceOf(FileList.class).isEqualTo(files).hasSameHashCodeAs(files)
                .hasToString(files.toString());
        assertThat(compact.get(1).getFileName()).hasToString("port_rcv_data");
        assertThat(FileList.of(compact)).isSameAs(compact);
        assertThatThrownBy(() -> compact.add(Path.of("x"))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void filesOfSeveralDirectoriesStayAPlainImmutableList() {
        List<Path> files = List.of(Path.of("/a/x"), Path.of("/b/y"));
        assertThat(FileList.of(files)).isNotInstanceOf(FileList.class).isEqualTo(files);
        assertThat(FileList.of(List.of())).isEmpty();
        assertThatThrownBy(() -> FileList.of(Arrays.asList(Path.of("/a/x"), null)))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void portsKeepTheirFilesCompact() {
        List<Path> files = List.of(Path.of("/p/counters/a"), Path.of("/p/counters/b"));
        RdmaPort p = new RdmaPort(1, RdmaPort.PortState.ACTIVE, RdmaPort.PhysState.LINK_UP,
                RdmaPort.LinkLayer.ETHERNET, java.util.Optional.empty(), java.util.Optional.empty(), List.of(),
                java.util.Optional.empty(), files, List.of(), null, null);
        assertThat(p.counterFiles()).isInstanceOf(FileList.class).isEqualTo(files);
    }
}
