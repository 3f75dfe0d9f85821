// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher.cdsfixture;

/** A class {@code CdsClassLinkerTest} packs into a bundle and has the linker link from there. */
public final class LoadedNotLinked {

    public static final String NAME = "loaded, not linked";

    private LoadedNotLinked() {
    }
}
