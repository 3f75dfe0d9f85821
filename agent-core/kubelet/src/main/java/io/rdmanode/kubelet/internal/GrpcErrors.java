// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.Status;

/**
 * gRPC failures as one line for logs, {@code /status} and {@code /readyz}. {@link Status#toString()} carries the
 * cause's whole stack trace (Netty's, some 4 KB when kubelet refuses connections); this keeps the code, the
 * description and the innermost cause's message, which is what says why.
 */
final class GrpcErrors {

    private static final int MAX_LENGTH = 300;

    private GrpcErrors() {
    }

    static String oneLine(Status status) {
        StringBuilder text = new StringBuilder(status.getCode().name());
        if (status.getDescription() != null) {
            text.append(": ").append(status.getDescription());
        }
        Throwable root = status.getCause();
        while (root != null && root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root != null) {
            String why = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
            if (status.getDescription() == null || !status.getDescription().contains(why)) {
                text.append(" (").append(why).append(')');
            }
        }
        String line = text.toString().replaceAll("\\s*[\\r\\n]+\\s*", " ");
        return line.length() <= MAX_LENGTH ? line : line.substring(0, MAX_LENGTH - 1) + "…";
    }
}
