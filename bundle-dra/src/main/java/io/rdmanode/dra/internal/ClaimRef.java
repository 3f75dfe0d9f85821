// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import java.util.Objects;

/** A claim as kubelet names it in Prepare and Unprepare: nothing about its allocation. */
record ClaimRef(String namespace, String uid, String name) {

    ClaimRef {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return namespace + "/" + name + " (uid " + uid + ")";
    }
}
