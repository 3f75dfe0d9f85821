// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LaunchOptionsTest {

    @Test
    void exitAfterHandoverIsOffUnlessAsked() {
        assertThat(LaunchOptions.parse(new String[] {"--config", "/tmp/a.conf"}, Path.of("/opt/agent"))
                .exitAfterHandover()).isFalse();
        assertThat(LaunchOptions.parse(new String[] {"--exit-after-handover"}, Path.of("/opt/agent"))
                .exitAfterHandover()).isTrue();
        assertThat(LaunchOptions.USAGE).contains("--exit-after-handover");
    }
}
