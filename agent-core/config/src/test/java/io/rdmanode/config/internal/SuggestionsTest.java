// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SuggestionsTest {

    @Test
    void suggestsTheClosestKeyOnlyWhenItLooksLikeATypo() {
        List<String> keys = List.of("rdmaHcaMax", "resourceName", "resourcePrefix");
        assertThat(Suggestions.nearest("rdmaHcaMx", keys)).contains("rdmaHcaMax");
        assertThat(Suggestions.nearest("resourcename", keys)).contains("resourceName");
        assertThat(Suggestions.nearest("colour", keys)).isEmpty();
    }
}
