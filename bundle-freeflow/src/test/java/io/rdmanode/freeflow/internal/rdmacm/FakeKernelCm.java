// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import java.util.function.IntSupplier;

/** rdma_cm on a fake kernel ({@link FakeUcma}) for the router's tests, whose INIT_QP_ATTR answers what they say. */
public final class FakeKernelCm {
    private FakeKernelCm() {
    }

    /** An RdmaCm whose kernel answers every INIT_QP_ATTR with {@code qpAttr} ({@code struct ib_uverbs_qp_attr}). */
    public static RdmaCm answeringInitQpAttr(IntSupplier maxChannels, byte[] qpAttr) {
        FakeUcma kernel = new FakeUcma();
        kernel.qpAttr = qpAttr;
        return new RdmaCm(kernel, maxChannels);
    }
}
