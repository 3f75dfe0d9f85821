// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.rdmanode.cni.PodAttachment;
import java.util.List;

/**
 * What {@link CniCollector} reports, a service inside this bundle (its package is not exported): the CNI
 * component provides it, the collector reads it at scrape time.
 */
public interface CniFigures {

    CniStats stats();

    List<PodAttachment> attachments();

    /** The rdma executable's version in the CNI bin directory. */
    String installedVersion();
}
