// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import io.rdmanode.posix.Posix;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A successor in a process of its own, for tests that stop or kill it (a successor in the test's own process is
 * never stopped, being the predecessor's): it takes one door, prints {@code took} or {@code not taken}, and then
 * runs until its standard input ends (the test, or the test JVM, going away).
 *
 * <p>Arguments: state directory, door name, door address, ready timeout in ms.
 */
final class SuccessorProcess {

    private SuccessorProcess() {
    }

    public static void main(String[] args) throws Exception {
        SocketHandover successor = new SocketHandover(Posix.libc(), Path.of(args[0]),
                Duration.ofMillis(Long.parseLong(args[3]))).start();
        System.out.println(successor.take(args[1], args[2]).isPresent() ? "took" : "not taken");
        System.out.flush();
        while (System.in.read() >= 0) {
            // until the test closes the pipe
        }
        successor.close();
    }

    /** Starts it with this JVM and class path; its log goes to the test's standard error. */
    static Process start(Path stateDir, String door, Path address, Duration readyTimeout) throws java.io.IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                SuccessorProcess.class.getName(), stateDir.toString(), door, address.toString(),
                Long.toString(readyTimeout.toMillis()))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
    }
}
