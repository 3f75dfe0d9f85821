// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.posix.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * Binds libc on a thread of its own as soon as this bundle is active. jnr-ffi's first binding (its stub compiler
 * and some 120 classes: 70-100 ms on the agent's C1-only JVM) would otherwise run on the framework's start thread
 * when the handover component first asks for {@code Posix}, on the way to registering the pools with kubelet after
 * a crash (issue 27). The launcher starts this bundle first, so the binding overlaps the configuration, discovery
 * and the device-plugin layer; whoever asks for libc before it is done waits for it, as before. A binding that
 * fails here fails again, with its reason, for the first caller.
 */
@Component(service = {}, immediate = true)
public final class LibcPreload {

    @Activate
    public LibcPreload() {
        // Before any bundle's first jnr-ffi call, so that none of them makes jffi extract its stub to /tmp.
        JffiStub.prepare();
        Thread bind = new Thread(LibcPreload::bind, "rdma-agent-posix-bind");
        bind.setDaemon(true);
        bind.start();
    }

    private static void bind() {
        try {
            JnrPosix.instance();
        } catch (RuntimeException | LinkageError e) {
            // Not this thread's to report: the first caller of Posix.libc() tries again and gets the error.
        }
    }
}
