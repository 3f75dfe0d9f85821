// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import io.rdmanode.deviceplugin.DeviceInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** NPWG device-info files: name, content, mode, replacement, stale removal; and the RDMA ledger's file. */
class DeviceInfoFilesTest {

    @TempDir
    Path dir;

    private static DeviceInfo vf(String bdf, List<String> rdma) {
        return new DeviceInfo(bdf, Optional.of("0000:3b:00.0"), rdma);
    }

    @Test
    void writesTheSpecFileNamedAfterResourceAndDeviceReadOnly() throws IOException {
        DeviceInfoFiles files = new DeviceInfoFiles(dir.resolve("devinfo/dp"), "rdma/sriov_a");

        Path f = files.write(vf("0000:3b:00.2", List.of("mlx5_1")));

        assertThat(f).isEqualTo(dir.resolve("devinfo/dp/rdma-sriov_a-0000:3b:00.2-device.json"));
        assertThat(Files.readString(f)).isEqualTo("{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{"
                + "\"pci-address\":\"0000:3b:00.2\",\"pf-pci-address\":\"0000:3b:00.0\",\"rdma-device\":\"mlx5_1\"}}");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).isEqualTo("r--r--r--");
        files.write(vf("0000:3b:00.2", List.of()));                       // re-Allocate replaces the read-only file
        assertThat(Files.readString(f)).doesNotContain("rdma-device");
        try (var listing = Files.list(f.getParent())) {
            assertThat(listing).hasSize(1);                                   // no temporary file left
        }
    }

    @Test
    void removesOnlyItsOwnStaleFiles() throws IOException {
        DeviceInfoFiles a = new DeviceInfoFiles(dir, "rdma/sriov_a");
        DeviceInfoFiles b = new DeviceInfoFiles(dir, "rdma/sriov_b");
        a.write(vf("0000:3b:00.2", List.of()));
        a.write(vf("0000:3b:00.3", List.of()));
        b.write(vf("0000:3b:00.4", List.of()));

        assertThat(a.removeAllBut(Set.of("0000:3b:00.3"))).containsExactly("0000:3b:00.2");
        assertThat(a.written()).containsExactly("0000:3b:00.3");
        assertThat(b.written()).containsExactly("0000:3b:00.4");
        assertThat(a.remove("0000:3b:00.3")).isTrue();
        assertThat(a.remove("0000:3b:00.3")).isFalse();
    }

    /**
     * Every Allocate of a VF writes the same facts: a file this instance wrote is left in place while it is there
     * with that content, and written again when it is gone or the facts changed.
     */
    @Test
    void theSameContentIsNotWrittenAgainWhileItsFileIsThere() throws Exception {
        DeviceInfoFiles files = new DeviceInfoFiles(dir, "rdma/sriov_a");
        java.nio.file.Path f = files.write(vf("0000:3b:00.2", List.of("mlx5_2")));
        Object inode = java.nio.file.Files.readAttributes(f, java.nio.file.attribute.BasicFileAttributes.class).fileKey();

        files.write(vf("0000:3b:00.2", List.of("mlx5_2")));
        assertThat(java.nio.file.Files.readAttributes(f, java.nio.file.attribute.BasicFileAttributes.class).fileKey())
                .isEqualTo(inode);

        java.nio.file.Files.delete(f);
        files.write(vf("0000:3b:00.2", List.of("mlx5_2")));
        assertThat(f).exists();

        files.write(vf("0000:3b:00.2", List.of("mlx5_3")));
        assertThat(java.nio.file.Files.readString(f)).contains("mlx5_3");
        assertThat(files.remove("0000:3b:00.2")).isTrue();
        files.write(vf("0000:3b:00.2", List.of("mlx5_3")));
        assertThat(f).exists();
    }

    /** A full file system (a 16 KiB tmpfs): a clear error, the previous file intact, no temporary file left. */
    @Test
    void aFullFileSystemFailsClearlyAndLeavesNoTemporaryFile() throws Exception {
        java.nio.file.Path mount = java.nio.file.Files.createDirectories(dir.resolve("small"));
        org.junit.jupiter.api.Assumptions.assumeTrue(io.rdmanode.deviceplugin.testing.TinyTmpfs.mount(mount, "16k"),
                "needs root to mount a tmpfs");
        try {
            DeviceInfoFiles files = new DeviceInfoFiles(mount, "rdma/sriov_a");
            files.write(vf("0000:3b:00.2", List.of("mlx5_2")));
            String before = java.nio.file.Files.readString(files.file("0000:3b:00.2"));
            io.rdmanode.deviceplugin.testing.TinyTmpfs.fill(mount);

            // Other content (the same is not written again, see below): the write must happen, and fail.
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> files.write(vf("0000:3b:00.2", List.of("mlx5_3"))))
                    .isInstanceOf(IOException.class).hasMessageContaining("No space left on device");

            assertThat(java.nio.file.Files.readString(files.file("0000:3b:00.2"))).isEqualTo(before);
            assertThat(mount).isDirectoryNotContaining("glob:**.tmp");
        } finally {
            io.rdmanode.deviceplugin.testing.TinyTmpfs.unmount(mount);
        }
    }
}
