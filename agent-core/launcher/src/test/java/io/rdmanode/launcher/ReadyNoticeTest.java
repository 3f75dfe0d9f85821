// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ready notices: systemd's (through systemd-notify, here a stand-in that records its arguments) and takeover's. */
class ReadyNoticeTest {

    @TempDir
    Path dir;

    private Path fakeSystemdNotify() throws IOException {
        Path tool = dir.resolve("systemd-notify");
        Files.writeString(tool, "#!/bin/sh\necho \"$@\" > " + dir.resolve("args") + "\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwx------"));
        return tool;
    }

    @Test
    void tellsSystemdReadyWithThisProcessAsMainPidWhenItAsks() throws IOException {
        ReadyNotice notice = new ReadyNotice(Map.of("NOTIFY_SOCKET", "/run/systemd/notify"),
                Optional.of(fakeSystemdNotify()), 4242);

        assertThat(notice.notifySystemd("ready; status page http://x/status")).isTrue();

        assertThat(Files.readString(dir.resolve("args")).trim())
                .isEqualTo("--pid=4242 --ready --status=ready; status page http://x/status");
    }

    @Test
    void staysQuietWithoutNotifySocketAndWritesTheReadyFileForTakeover() throws IOException {
        Path ready = dir.resolve("takeover.ready");
        ReadyNotice notice = new ReadyNotice(Map.of(ReadyNotice.READY_FILE_ENV, ready.toString()),
                Optional.of(fakeSystemdNotify()), 4242);

        notice.ready("ready");

        assertThat(dir.resolve("args")).doesNotExist();
        assertThat(Files.readString(ready)).isEqualTo("4242\n");
    }

    @Test
    void findsToolsOnPath() throws IOException {
        fakeSystemdNotify();
        assertThat(ReadyNotice.onPath("systemd-notify", "/nonexistent:" + dir)).contains(dir.resolve("systemd-notify"));
        assertThat(ReadyNotice.onPath("no-such-tool", dir.toString())).isEmpty();
    }
}
