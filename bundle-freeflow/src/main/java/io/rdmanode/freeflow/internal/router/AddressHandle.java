// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

/** A UD destination of a tenant (CREATE_AH), named by its handle in the UD QP's POST_SEND WRs. Router-guarded. */
final class AddressHandle {
    final Tenant tenant;
    final int handle;
    final int pd;
    final byte[] dgid;
    final int dlid;
    final int sl;
    final boolean global;

    AddressHandle(Tenant tenant, int handle, int pd, byte[] dgid, int dlid, int sl, boolean global) {
        this.tenant = tenant;
        this.handle = handle;
        this.pd = pd;
        this.dgid = dgid;
        this.dlid = dlid;
        this.sl = sl;
        this.global = global;
    }
}
