// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FelixCacheSlotTest {

    @TempDir
    Path stateDir;

    @Test
    void aSecondInstanceGetsACacheOfItsOwnAndARestartGetsTheFirstBack() throws Exception {
        FelixCacheSlot first = FelixCacheSlot.claim(stateDir);
        FelixCacheSlot second = FelixCacheSlot.claim(stateDir);

        assertThat(first.directory()).isEqualTo(stateDir.resolve("felix-cache"));
        assertThat(second.directory()).isEqualTo(stateDir.resolve("felix-cache-2"));

        first.close();
        try (FelixCacheSlot third = FelixCacheSlot.claim(stateDir)) {
            assertThat(third.directory()).isEqualTo(stateDir.resolve("felix-cache"));
        }
        second.close();
    }
}
