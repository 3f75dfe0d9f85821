// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CdiRuntimeTest {

    @TempDir
    Path root;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "enable_cdi = true under the CRI plugin         | version = 2\\n  enable_cdi = true      | ENABLED  | sets enable_cdi = true",
        "enable_cdi = false                              | version = 2\\n  enable_cdi = false     | DISABLED | sets enable_cdi = false",
        "containerd 2.x config                           | version = 3\\n                          | ENABLED  | containerd 2.x",
        "containerd 1.7 config without the key           | version = 2\\n                          | DISABLED | does not set enable_cdi"})
    void readsContainerdsConfig(String name, String toml, CdiRuntime.Verdict verdict, String detail)
            throws IOException {
        Path file = Files.createDirectories(root.resolve("etc/containerd")).resolve("config.toml");
        Files.writeString(file, toml.replace("\\n", "\n"));

        CdiRuntime.Finding f = CdiRuntime.detect(root);

        assertThat(f.verdict()).isEqualTo(verdict);
        assertThat(f.detail()).contains(detail).contains(file.toString());
    }

    @Test
    void crioAppliesCdiAndNothingVisibleIsUnknown() throws IOException {
        assertThat(CdiRuntime.detect(root).verdict()).isEqualTo(CdiRuntime.Verdict.UNKNOWN);
        assertThat(CdiRuntime.detect(root).detail()).contains("mount the node's /etc/containerd");

        Files.createDirectories(root.resolve("etc/crio"));
        assertThat(CdiRuntime.detect(root).verdict()).isEqualTo(CdiRuntime.Verdict.ENABLED);
        assertThat(CdiRuntime.detect(root).toStatus()).containsKeys("requirement", "detected", "detail");
    }
}
