// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

/**
 * What a function id carries: its request body (a fixed struct, nothing, or a variable post body), the struct
 * the router answers with, and which field of that answer holds the error, if any (the C client has no error
 * field in some answers: there a zeroed struct with handle 0 is the error reply).
 */
public record FuncSpec(int id, String name, Layout request, boolean variableRequest, Layout response,
                       String retField) {

    /** Exact body size a fixed request must have; -1 for a variable one. */
    public int requestSize() {
        return variableRequest ? -1 : request == null ? 0 : request.size();
    }

    public boolean hasRet() {
        return retField != null;
    }
}
