// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.util.List;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Reads the values of RDMA devices that a snapshot does not keep (counters, link state, rate) from one sysfs
 * tree, at call time: discovery is the one reader of {@code class/infiniband}, and a metrics scrape asks it here.
 * Obtained from {@link RdmaDiscovery#counters()} (the tree discovery reads) or {@link RdmaDiscovery#counters(
 * java.nio.file.Path)} (another tree, such as a pod's own sysfs on a thread inside its namespace). Thread-safe.
 *
 * @since 1.3
 */
@ProviderType
public interface RdmaCounters {

    /** The device attributes a scrape labels its series with; they do not change while the device exists. */
    enum DeviceAttribute {
        /** {@code <device>/board_id}. */
        BOARD_ID,
        /** {@code <device>/hca_type}. */
        HCA_TYPE
    }

    /** The attribute's first line, trimmed, as the tree shows it now; empty when it cannot be read. */
    Optional<String> deviceAttribute(String device, DeviceAttribute attribute);

    /**
     * The counter file names of one port (or, port 0 and {@link RdmaCounter.Kind#HW_COUNTER}, of the device) for a
     * counter kind, sorted; empty when the directory is not there. A snapshot lists {@code counters/} and
     * {@code hw_counters/} already ({@link RdmaPort#counterFiles()}); {@code counters_ext/} only this lists.
     */
    List<String> counterNames(String device, int port, RdmaCounter.Kind kind);

    /**
     * A reader of a fixed list of values, prepared once (file paths worked out) and then read on every call: the
     * hot path of a scrape, which reads thousands of files on a big host.
     */
    Reader reader(List<RdmaCounter> counters);

    /** Reads its list of values now. */
    @ProviderType
    interface Reader {

        /** How many values {@link #read} fills. */
        int size();

        /**
         * Fills {@code values[i]} with the i-th value of the list as it is now, NaN where the file cannot be read
         * or parsed (a device without a PMA answers {@code N/A (no PMA)}; the kernel answers EINVAL for some).
         * Counters are unsigned 64-bit decimals as the nearest double.
         */
        void read(double[] values);
    }
}
