// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.agent.Ttar;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Path;

/** Unpacks {@code fixtures/sysfs/<host>.ttar} from the test class path into a directory. */
final class SysfsFixture {

    private SysfsFixture() {
    }

    static SysfsRoot unpack(String host, Path dir) {
        try {
            Path archive = Path.of(SysfsFixture.class.getResource("/fixtures/sysfs/" + host + ".ttar").toURI());
            Ttar.unpack(archive, dir);
            return new SysfsRoot(dir.resolve("sys"), dir.resolve("dev"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalArgumentException("no fixture " + host, e);
        }
    }
}
