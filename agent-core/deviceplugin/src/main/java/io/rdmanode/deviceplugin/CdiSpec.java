// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * One CDI spec file owned by one pool ({@code <dir>/<vendor>-<class>_<owner>.json}, CDI spec 0.5.0), written
 * atomically (temp file and rename) so a runtime never reads half a file. Created by
 * {@link DevicePluginLayer#cdiSpec}; specs of this agent left in the directory by an instance that was killed
 * are removed when the layer starts. Thread-safe.
 *
 * @since 1.0
 */
@ProviderType
public interface CdiSpec extends AutoCloseable {

    /** {@code vendor.com/class}. */
    String kind();

    Path file();

    /** {@code kind=device}, for the {@code cdi_devices} field and the annotation value. */
    String qualifiedName(String device);

    /** The {@code cdi.k8s.io/...} annotation key unique to this spec. */
    String annotationKey();

    /**
     * Writes the spec unless the same devices are already on disk.
     *
     * @return whether the file was (re)written
     */
    boolean write(List<CdiDevice> devices) throws IOException;

    /** The devices on disk now; empty before the first write. */
    List<CdiDevice> written();

    /** Deletes the file. Idempotent. */
    @Override
    void close() throws IOException;
}
