// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Whether a process has exited, a zombie included: a killed successor is a zombie until its parent (systemd, the
 * shell of a reload) reaps it, and {@link ProcessHandle#isAlive()} counts zombies as alive.
 */
final class ProcessGone {

    private ProcessGone() {
    }

    /** True when /proc has no such process or shows it exited (state Z or X). */
    static boolean is(int pid) {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        } catch (NoSuchFileException gone) {
            return true;
        } catch (IOException e) {
            return false;
        }
        // pid (comm) state ...: comm may hold spaces and parentheses, the state follows the last ')'.
        int close = stat.lastIndexOf(')');
        if (close < 0 || close + 2 >= stat.length()) {
            return false;
        }
        char state = stat.charAt(close + 2);
        return state == 'Z' || state == 'X';
    }
}
