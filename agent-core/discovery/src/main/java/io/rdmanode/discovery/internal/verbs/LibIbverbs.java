// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import jnr.ffi.Pointer;
import jnr.ffi.byref.IntByReference;

/** libibverbs.so.1 ({@code infiniband/verbs.h}, rdma-core): the only file with verbs C signatures. */
public interface LibIbverbs {

    /** {@code struct ibv_device **ibv_get_device_list(int *num_devices)}; NULL + errno on failure. */
    Pointer ibv_get_device_list(IntByReference numDevices);

    void ibv_free_device_list(Pointer list);

    String ibv_get_device_name(Pointer device);

    /** {@code __be64 ibv_get_device_guid(struct ibv_device *)}: big-endian in a host integer. */
    long ibv_get_device_guid(Pointer device);
}
