// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

/**
 * Something that could not be read for one object. The object is left out of (or only partly described in)
 * the snapshot; everything else is still there.
 *
 * @param object  what was being read, e.g. {@code rdma device mlx5_3} or {@code pci 0000:3b:00.2}
 * @param message "what failed, on what: why", naming the path
 * @since 1.0
 */
public record Problem(String object, String message) { }
