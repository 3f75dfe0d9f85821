// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * One CDI spec file owned by one pool ({@code <dir>/<vendor>-<class>_<owner>.json}, CDI spec 0.5.0), written
 * atomically (temp file and rename) so a runtime never reads half a file. Created by
 * {@link DevicePluginLayer#cdiSpec(Path, String, String, String)}, which claims the file for the pool. The file
 * outlives the pool and the process: a runtime reads it again at every container restart of a pod holding a
 * device of the pool. Stopping removes no spec; the layer removes it once the pool is retired
 * ({@link ServedPool#retire}) or no longer configured at a start, and no running container holds a device of its
 * resource. Thread-safe.
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

    /**
     * The pool no longer writes the spec (it stops): the file stays, for the pods that hold devices of the pool and
     * for the next instance, which writes it again when the pool starts. Idempotent.
     *
     * @since 2.2 (deleted the file before)
     */
    @Override
    void close() throws IOException;
}
