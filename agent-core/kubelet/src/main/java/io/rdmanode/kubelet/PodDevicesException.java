// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

/**
 * Neither kubelet's pod-resources API nor its checkpoint says what running pods hold. The message names what
 * failed on each, e.g. {@code "pod-resources socket /x: absent; kubelet checkpoint /y: absent"}.
 *
 * @since 1.3
 */
public class PodDevicesException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PodDevicesException(String message, Throwable cause) {
        super(message, cause);
    }
}
