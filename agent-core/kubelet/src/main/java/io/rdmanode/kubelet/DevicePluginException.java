// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

/**
 * A device-plugin failure visible to kubelet. The host turns {@link #code()} into the gRPC status of the same
 * name and the message into its description; stack traces stay in the log.
 *
 * @since 1.0
 */
public class DevicePluginException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The gRPC status codes a plugin may answer with. */
    public enum Code { INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, UNAVAILABLE }

    private final Code code;
    private final String resourceName;

    public DevicePluginException(Code code, String resourceName, String message) {
        this(code, resourceName, message, null);
    }

    public DevicePluginException(Code code, String resourceName, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.resourceName = resourceName;
    }

    public Code code() {
        return code;
    }

    public String resourceName() {
        return resourceName;
    }
}
